import ReactMarkdown from 'react-markdown';
import { url } from '../api/client';

/**
 * Markdown rendered safely: raw HTML in the source is dropped (never parsed), so no script or
 * markup from a ticket runs; links open in a new tab without access to this page.
 */
export function Markdown({ source }: { source: string }) {
  return (
    <div className="markdown text-[13px] leading-relaxed">
      <ReactMarkdown
        skipHtml
        components={{
          a: ({ href, children }) => (
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
