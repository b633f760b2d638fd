import * as RadixDialog from '@radix-ui/react-dialog';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { parseTicketKey } from '../../shared/rules';
import { parseQuery } from '../../shared/search-query';
import { useProjects } from '../api/projects';
import { useSearchPreview } from '../api/search';
import type { Project } from '../api/types';
import { useListNavigation } from '../hooks/list-navigation';
import { effectiveTheme, setTheme } from '../hooks/theme';
import { TypeIcon } from './icons';
import { useShell } from './shell-context';
import { ColorDot, Kbd } from './ui';

interface Item {
  id: string;
  group: string;
  label: string;
  hint?: string;
  icon?: React.ReactNode;
  run: () => void;
}

function useDebounced(value: string, ms: number) {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

const parses = (text: string) => {
  try {
    parseQuery(text);
    return true;
  } catch {
    return false;
  }
};

/** The palette's actions (the ones the query's words match are shown). */
function actionItems(
  go: (path: string) => () => void,
  onClose: () => void,
  shell: ReturnType<typeof useShell>,
  hasProjects: boolean,
  currentProject: Project | undefined,
): Item[] {
  return [
    ...(hasProjects
      ? [
          {
            id: 'a-new-ticket',
            group: 'Actions',
            label: 'Create ticket',
            hint: 'C',
            run: () => {
              onClose();
              shell.newTicket(currentProject?.id);
            },
          },
        ]
      : []),
    {
      id: 'a-new-project',
      group: 'Actions',
      label: 'Create project',
      run: () => {
        onClose();
        shell.createProject();
      },
    },
    { id: 'a-projects', group: 'Actions', label: 'Go to all projects', run: go('/') },
    ...(currentProject
      ? [
          {
            id: 'a-settings',
            group: 'Actions',
            label: `Open ${currentProject.name} settings`,
            run: go(`/projects/${currentProject.key}/settings`),
          },
        ]
      : []),
    {
      id: 'a-theme',
      group: 'Actions',
      label: `Switch to ${effectiveTheme() === 'dark' ? 'light' : 'dark'} theme`,
      run: () => {
        onClose();
        setTheme(effectiveTheme() === 'dark' ? 'light' : 'dark');
      },
    },
    {
      id: 'a-help',
      group: 'Actions',
      label: 'Keyboard shortcuts',
      hint: '?',
      run: () => {
        onClose();
        shell.openHelp();
      },
    },
    {
      id: 'a-signout',
      group: 'Actions',
      label: 'Sign out',
      run: () => {
        onClose();
        shell.signOut();
      },
    },
  ];
}

/**
 * What the palette offers for the query: opening a typed ticket key, the matching actions and
 * projects, the tickets the search finds (as you type, the search page's grammar), and the search.
 */
function usePaletteItems(query: string, onClose: () => void, currentProject: Project | undefined) {
  const [, navigate] = useLocation();
  const shell = useShell();
  const projects = useProjects();
  // Tickets come from the search endpoint (the same grammar as the search page), as you type.
  const typed = useDebounced(query.trim(), 120);
  const searchable = typed !== '' && parses(typed);
  const found = useSearchPreview(typed, 8, searchable);
  return useMemo(() => {
    const q = query.trim().toLowerCase();
    const go = (path: string) => () => {
      onClose();
      navigate(path);
    };
    const out: Item[] = [];
    const keyMatch = parseTicketKey(query);
    if (keyMatch) {
      out.push({
        id: 'open-key',
        group: 'Tickets',
        label: `Open ${keyMatch.key}`,
        run: go(`/projects/${keyMatch.projectKey}/${keyMatch.key}`),
      });
    }
    const actions = actionItems(go, onClose, shell, !!projects.data?.length, currentProject);
    out.push(...actions.filter((a) => !q || a.label.toLowerCase().includes(q)));
    for (const p of projects.data ?? []) {
      if (q && !p.name.toLowerCase().includes(q) && !p.key.toLowerCase().includes(q)) continue;
      out.push({
        id: `p-${p.id}`,
        group: 'Projects',
        label: p.name,
        hint: p.key,
        icon: <ColorDot color={p.color} />,
        run: go(`/projects/${p.key}`),
      });
    }
    for (const t of found.data?.items ?? []) {
      if (!q) break;
      out.push({
        id: `t-${t.id}`,
        group: 'Tickets',
        label: t.title,
        hint: t.key,
        icon: <TypeIcon type={t.type} />,
        run: go(`/projects/${t.projectKey}/${t.key}`),
      });
    }
    if (q)
      out.push({
        id: 'search-all',
        group: 'Search',
        label: `Search for “${query.trim()}”${found.data ? ` (${found.data.total})` : ''}`,
        run: go(`/search?q=${encodeURIComponent(query.trim())}`),
      });
    return out;
  }, [query, projects.data, found.data, navigate, onClose, shell, currentProject]);
}

/** Ctrl/Cmd+K: jump to a project or a ticket (by key or title) and run common actions. */
export function CommandPalette({
  onClose,
  currentProject,
}: {
  onClose: () => void;
  currentProject?: Project;
}) {
  const [query, setQuery] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  // Where focus was when the palette opened (read at the first render, before the palette takes it).
  const opener = useRef<HTMLElement | null>(null);
  opener.current ??= document.activeElement as HTMLElement | null;
  const items = usePaletteItems(query, onClose, currentProject);
  const { active, setActive, onKeyDown } = useListNavigation(items.length, (i) => items[i]?.run());

  // A Radix dialog: focus trapped in it, the page inert, Escape (this layer only) or a click outside closes.
  return (
    <RadixDialog.Root open onOpenChange={(open) => !open && onClose()}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-50 bg-[var(--overlay)]" />
        <div className="pointer-events-none fixed inset-0 z-50 flex items-start justify-center p-4 pt-[12vh]">
          <RadixDialog.Content
            aria-label="Command palette"
            aria-describedby={undefined}
            onOpenAutoFocus={(e) => {
              e.preventDefault();
              input.current?.focus();
            }}
            onEscapeKeyDown={(e) => e.stopPropagation()}
            onCloseAutoFocus={(e) => {
              e.preventDefault();
              opener.current?.focus();
            }}
            className="pointer-events-auto relative w-full max-w-xl overflow-hidden rounded-lg border border-line bg-surface shadow-pop"
          >
            <RadixDialog.Title className="sr-only">Command palette</RadixDialog.Title>
            <input
              ref={input}
              role="combobox"
              aria-expanded="true"
              aria-controls={listId}
              aria-activedescendant={items[active] ? `${listId}-${active}` : undefined}
              aria-label="Search projects, tickets and actions"
              placeholder="Type a command, a project, a ticket key or title…"
              className="h-11 w-full border-b border-line bg-transparent px-4 text-[14px] text-fg placeholder:text-faint focus:outline-none"
              value={query}
              onChange={(e) => {
                setQuery(e.target.value);
                setActive(0);
              }}
              onKeyDown={onKeyDown}
            />
            <div id={listId} role="listbox" className="max-h-[50vh] overflow-y-auto p-1">
              {items.length === 0 && (
                <div className="px-3 py-6 text-center text-faint">Nothing matches “{query}”</div>
              )}
              {items.map((item, i) => (
                <div key={item.id} role="presentation">
                  {(i === 0 || items[i - 1].group !== item.group) && (
                    <div className="px-3 pt-2 pb-1 text-[11px] font-medium tracking-wide text-faint uppercase">
                      {item.group}
                    </div>
                  )}
                  <div
                    id={`${listId}-${i}`}
                    role="option"
                    aria-selected={i === active}
                    tabIndex={-1}
                    onMouseMove={() => setActive(i)}
                    onClick={() => items[i]?.run()}
                    onKeyDown={() => {}}
                    className={`flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 ${i === active ? 'bg-hover' : ''}`}
                  >
                    {item.icon}
                    <span className="min-w-0 flex-1 truncate">{item.label}</span>
                    {item.hint && <Kbd>{item.hint}</Kbd>}
                  </div>
                </div>
              ))}
            </div>
          </RadixDialog.Content>
        </div>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
