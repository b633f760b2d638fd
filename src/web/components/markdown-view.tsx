import type { ReactNode } from 'react';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { Link } from 'wouter';
import { MENTION_PATTERN } from '../../shared/mentions';
import { TICKET_KEY_IN_TEXT } from '../../shared/rules';
import { url } from '../api/client';
import { setTaskChecked } from '../lib/markdown-tasks';

type MdNode = { type: string; value?: string; url?: string; children?: MdNode[]; data?: unknown };

const link = (href: string, text: string, props: Record<string, string>): MdNode => ({
  type: 'link',
  url: href,
  children: [{ type: 'text', value: text }],
  data: { hProperties: props },
});

/** Where a mention or a ticket key starts in a text, and the link it becomes. */
function references(text: string): { start: number; end: number; node: MdNode }[] {
  const found: { start: number; end: number; node: MdNode }[] = [];
  for (const m of text.matchAll(new RegExp(MENTION_PATTERN.source, 'g'))) {
    const start = (m.index ?? 0) + m[1].length;
    found.push({
      start,
      end: start + 1 + m[2].length,
      node: link(`/people/${encodeURIComponent(m[2])}`, `@${m[2]}`, {
        className: 'mention',
        'data-mention': m[2],
      }),
    });
  }
  for (const m of text.matchAll(new RegExp(TICKET_KEY_IN_TEXT.source, 'g'))) {
    const start = (m.index ?? 0) + m[1].length;
    const key = `${m[2]}-${m[3]}`;
    found.push({
      start,
      end: start + key.length,
      node: link(`/projects/${m[2]}/${key}`, key, { className: 'ticket-ref', 'data-ticket-key': key }),
    });
  }
  return found.sort((a, b) => a.start - b.start);
}

/**
 * Turns `@username` (src/shared/mentions.ts) and ticket keys like `WEB-12` (src/shared/rules.ts) in
 * text, not in code or links, into links inside the app.
 */
function remarkReferences() {
  const split = (text: string): MdNode[] => {
    const out: MdNode[] = [];
    let last = 0;
    for (const r of references(text)) {
      if (r.start < last) continue;
      if (r.start > last) out.push({ type: 'text', value: text.slice(last, r.start) });
      out.push(r.node);
      last = r.end;
    }
    if (out.length === 0) return [{ type: 'text', value: text }];
    if (last < text.length) out.push({ type: 'text', value: text.slice(last) });
    return out;
  };
  const walk = (node: MdNode) => {
    if (!node.children || node.type === 'link' || node.type === 'linkReference') return;
    node.children = node.children.flatMap((c) => {
      if (c.type === 'text' && c.value) return split(c.value);
      walk(c);
      return [c];
    });
  };
  return (tree: MdNode) => walk(tree);
}

/** An image Docket stores itself (an attachment or upload), as opposed to one from another site. */
const isOwnImage = (src: string) => src.startsWith('/') && !src.startsWith('//');

export interface MarkdownProps {
  source: string;
  /**
   * Called with the new source when a task-list box is ticked; without it the boxes are read-only
   * (for those who may not edit the text).
   */
  onSourceChange?: (next: string) => void;
}

/**
 * GitHub-flavoured Markdown rendered safely: tables, task lists, strikethrough, autolinks; raw HTML
 * in the source is dropped (never parsed), so no script or markup from a ticket runs; links to
 * other sites open in a new tab without access to this page. Mentions and ticket keys link inside
 * the app. Images stored by Docket show inline; an image from another site shows as a link to it,
 * never fetched by the page (docs/decisions/045-compression-and-outside-images.md).
 */
export default function MarkdownView({ source, onSourceChange }: MarkdownProps) {
  return (
    <div className="markdown text-[13px] leading-relaxed">
      <ReactMarkdown
        skipHtml
        remarkPlugins={[remarkGfm, remarkReferences]}
        components={{
          a: ({ href, children, className, node: _node, ...data }) =>
            (className === 'mention' && href?.startsWith('/people/')) ||
            (className === 'ticket-ref' && href?.startsWith('/projects/')) ? (
              <Link href={href} className={`${className} font-medium text-accent hover:underline`} {...data}>
                {children}
              </Link>
            ) : (
              <a href={href} target="_blank" rel="noopener noreferrer nofollow">
                {children}
              </a>
            ),
          img: ({ src, alt }) => {
            if (typeof src !== 'string') return null;
            if (isOwnImage(src))
              return <img src={url(src)} alt={alt ?? ''} loading="lazy" className="max-w-full rounded" />;
            return (
              <a
                href={src}
                target="_blank"
                rel="noopener noreferrer nofollow"
                className="outside-image"
                title="An image from another site: open it there"
              >
                {`Image: ${alt || src}`}
              </a>
            );
          },
          li: ({ node, className, children }) => {
            const offset = node?.position?.start.offset;
            const task = className?.includes('task-list-item') && offset !== undefined;
            return (
              <li className={className} data-task-offset={task ? offset : undefined}>
                {children as ReactNode}
              </li>
            );
          },
          input: ({ type, checked }) =>
            type === 'checkbox' ? (
              // Ticks at once; the source's own value takes over when it comes back (a new key).
              <input
                key={String(Boolean(checked))}
                type="checkbox"
                defaultChecked={Boolean(checked)}
                disabled={!onSourceChange}
                aria-label="Task done"
                onClick={(e) => e.stopPropagation()}
                onChange={(e) => {
                  const item = e.currentTarget.closest<HTMLElement>('li[data-task-offset]');
                  if (!item || !onSourceChange) return;
                  const next = setTaskChecked(
                    source,
                    Number(item.dataset.taskOffset),
                    e.currentTarget.checked,
                  );
                  if (next !== null) onSourceChange(next);
                }}
              />
            ) : null,
        }}
      >
        {source}
      </ReactMarkdown>
    </div>
  );
}
