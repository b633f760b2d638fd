import ReactMarkdown from 'react-markdown';
import { Link } from 'wouter';
import { MENTION_PATTERN } from '../../shared/mentions';
import { url } from '../api/client';

type MdNode = { type: string; value?: string; url?: string; children?: MdNode[]; data?: unknown };

/** Turns `@username` in text (not in code or links) into links to the person (src/shared/mentions.ts). */
function remarkMentions() {
  const split = (text: string): MdNode[] => {
    const out: MdNode[] = [];
    let last = 0;
    for (const m of text.matchAll(new RegExp(MENTION_PATTERN.source, 'g'))) {
      const start = (m.index ?? 0) + m[1].length;
      if (start > last) out.push({ type: 'text', value: text.slice(last, start) });
      out.push({
        type: 'link',
        url: `/people/${encodeURIComponent(m[2])}`,
        children: [{ type: 'text', value: `@${m[2]}` }],
        data: { hProperties: { className: 'mention', 'data-mention': m[2] } },
      });
      last = start + 1 + m[2].length;
    }
    if (out.length === 0) return [{ type: 'text', value: text }];
    if (last < text.length) out.push({ type: 'text', value: text.slice(last) });
    return out;
  };
  const walk = (node: MdNode) => {
    if (!node.children || node.type === 'link' || node.type === 'linkReference') return;
    node.children = node.children.flatMap((c) => {
      if (c.type === 'text' && c.value?.includes('@')) return split(c.value);
      walk(c);
      return [c];
    });
  };
  return (tree: MdNode) => walk(tree);
}

/**
 * Markdown rendered safely: raw HTML in the source is dropped (never parsed), so no script or
 * markup from a ticket runs; links open in a new tab without access to this page. Mentions link
 * to the person, inside the app.
 */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown text-[13px] leading-relaxed">
      <ReactMarkdown
        skipHtml
        remarkPlugins={[remarkMentions]}
        components={{
          a: ({ href, children, className }) =>
            className === 'mention' && href?.startsWith('/people/') ? (
              <Link href={href} className="mention font-medium text-accent hover:underline">
                {children}
              </Link>
            ) : (
              <a href={href} target="_blank" rel="noopener noreferrer nofollow">
                {children}
              </a>
            ),
          img: ({ src, alt }) =>
            typeof src === 'string' ? (
              <img src={url(src)} alt={alt ?? ''} className="max-w-full rounded" />
            ) : null,
        }}
      >
        {source}
      </ReactMarkdown>
    </div>
  );
}
