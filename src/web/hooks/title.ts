import { useEffect, useRef } from 'react';

/**
 * The document's title, per page: "WEB-12 Fix the login · Docket". Titles stack in the order their
 * pages appeared: a ticket drawer opened over a board shows the ticket's title, and the board's
 * comes back when the drawer closes.
 */
const stack: { title: string }[] = [];
const APP = 'Docket';

function show() {
  const top = stack[stack.length - 1]?.title;
  document.title = top ? `${top} · ${APP}` : APP;
}

export function useDocumentTitle(title: string | null | undefined) {
  const entry = useRef<{ title: string } | null>(null);
  useEffect(() => {
    const e = { title: '' };
    entry.current = e;
    stack.push(e);
    return () => {
      stack.splice(stack.indexOf(e), 1);
      show();
    };
  }, []);
  useEffect(() => {
    if (!entry.current) return;
    entry.current.title = title ?? '';
    show();
  }, [title]);
}
