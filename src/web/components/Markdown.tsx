import { lazy, Suspense } from 'react';
import type { MarkdownProps } from './markdown-view';

/** The Markdown renderer (react-markdown, remark-gfm) is loaded when the first text is shown. */
const MarkdownView = lazy(() => import('./markdown-view'));

/** Rendered Markdown; until the renderer has loaded, the source as plain text in its place. */
export function Markdown(props: MarkdownProps) {
  return (
    <Suspense
      fallback={
        <div className="markdown whitespace-pre-wrap text-[13px] leading-relaxed">{props.source}</div>
      }
    >
      <MarkdownView {...props} />
    </Suspense>
  );
}
