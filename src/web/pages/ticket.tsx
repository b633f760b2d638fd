import { useQueryClient } from '@tanstack/react-query';
import { type DragEvent, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { Link } from 'wouter';
import { LIMITS } from '../../shared/limits';
import { deleteAttachment, uploadAttachment, useAttachments } from '../api/attachments';
import { errorText, url } from '../api/client';
import { useColumns } from '../api/columns';
import { addComment, deleteComment, editComment, useComments } from '../api/comments';
import { qk } from '../api/keys';
import { createLabel, useLabels } from '../api/labels';
import { createLink, deleteLink, useHistory } from '../api/links';
import { useMembers } from '../api/members';
import { useSession } from '../api/session';
import { useSprints } from '../api/sprints';
import {
  type TicketPatch,
  useCreateTicket,
  useDeleteTicket,
  useTicket,
  useTickets,
  useUpdateTicket,
} from '../api/tickets';
import {
  type Attachment,
  type Comment,
  type FullTicket,
  type Label,
  LINK_LABELS,
  LINK_TYPES,
  type LinkType,
  type Member,
  PRIORITIES,
  type Project,
  TICKET_TYPES,
  type Ticket,
} from '../api/types';
import { formatBytes } from '../api/upload';
import { TypeIcon } from '../components/icons';
import { Markdown } from '../components/Markdown';
import { Popover } from '../components/Popover';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import {
  Avatar,
  Button,
  Dialog,
  ErrorState,
  Input,
  inputClass,
  LabelChip,
  Select,
  Skeleton,
  Textarea,
} from '../components/ui';
import { useEscape } from '../hooks/shortcuts';

/** The ticket drawer: every field editable in place, description, subtasks, links, files, activity. */
export function TicketDrawer({
  project,
  ticketRef,
  onClose,
}: {
  project: Project;
  ticketRef: string;
  onClose: () => void;
}) {
  const ticket = useTicket(project.id, ticketRef);
  const panel = useRef<HTMLDivElement>(null);
  useEscape(onClose);
  // Focus goes back where it was (the card that opened the ticket) when the drawer closes.
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves to the panel whenever another ticket opens in it
  useEffect(() => {
    panel.current?.focus();
  }, [ticketRef]);

  return createPortal(
    <div className="fixed inset-0 z-30 flex justify-end">
      <div
        className="absolute inset-0 bg-[var(--overlay)] md:bg-transparent"
        aria-hidden="true"
        onClick={onClose}
      />
      <div
        ref={panel}
        role="dialog"
        aria-modal="false"
        aria-label={ticket.data ? `${ticket.data.key} ${ticket.data.title}` : `Ticket ${ticketRef}`}
        tabIndex={-1}
        data-testid="ticket-drawer"
        className="relative flex h-full w-full max-w-[860px] flex-col border-l border-line bg-bg shadow-pop focus:outline-none focus-visible:outline-none"
      >
        {ticket.isError ? (
          <>
            <DrawerHeader title={ticketRef} onClose={onClose} />
            <ErrorState message={errorText(ticket.error)} onRetry={() => ticket.refetch()} />
          </>
        ) : !ticket.data ? (
          <>
            <DrawerHeader title={ticketRef} onClose={onClose} />
            <div className="flex flex-col gap-3 p-5" aria-busy="true">
              <Skeleton className="h-7 w-2/3" />
              <Skeleton className="h-24" />
              <Skeleton className="h-40" />
            </div>
          </>
        ) : (
          <TicketView project={project} ticket={ticket.data} onClose={onClose} />
        )}
      </div>
    </div>,
    document.body,
  );
}

function DrawerHeader({
  title,
  onClose,
  children,
}: {
  title: ReactNode;
  onClose: () => void;
  children?: ReactNode;
}) {
  return (
    <div className="flex h-11 shrink-0 items-center gap-2 border-b border-line px-4">
      <div className="min-w-0 flex-1 truncate text-muted">{title}</div>
      {children}
      <button
        type="button"
        aria-label="Close ticket (Esc)"
        title="Close (Esc)"
        onClick={onClose}
        className="rounded px-1.5 text-[16px] text-faint hover:bg-hover hover:text-fg"
      >
        ×
      </button>
    </div>
  );
}

function TicketView({
  project,
  ticket,
  onClose,
}: {
  project: Project;
  ticket: FullTicket;
  onClose: () => void;
}) {
  const update = useUpdateTicket(project.id);
  const del = useDeleteTicket(project.id);
  const toast = useToast();
  const tickets = useTickets(project.id);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [dragging, setDragging] = useState(false);
  const uploadRef = useRef<(files: FileList | File[]) => void>(() => {});
  const save = (patch: TicketPatch) => update.mutate({ ticket, patch });
  const parent = ticket.parentId ? tickets.data?.find((t) => t.id === ticket.parentId) : undefined;

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer.files.length) uploadRef.current(e.dataTransfer.files);
  };

  return (
    <>
      <DrawerHeader
        onClose={onClose}
        title={
          <span className="flex items-center gap-1.5">
            <Link href={`/projects/${project.key}`} className="hover:text-fg">
              {project.key}
            </Link>
            {parent && (
              <>
                <span className="text-faint">/</span>
                <Link href={`/projects/${project.key}/${parent.key}`} className="hover:text-fg">
                  {parent.key}
                </Link>
              </>
            )}
            <span className="text-faint">/</span>
            <span className="font-mono text-fg" data-testid="drawer-key">
              {ticket.key}
            </span>
          </span>
        }
      >
        <Button size="sm" variant="ghost" onClick={() => setConfirmDelete(true)}>
          Delete
        </Button>
      </DrawerHeader>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for files; the Upload button does the same from the keyboard */}
      <div
        data-testid="ticket-body"
        className={`min-h-0 flex-1 overflow-y-auto ${dragging ? 'outline-2 -outline-offset-4 outline-accent outline-dashed' : ''}`}
        onDragOver={(e) => {
          if (e.dataTransfer.types.includes('Files')) {
            e.preventDefault();
            setDragging(true);
          }
        }}
        onDragLeave={(e) => {
          if (e.currentTarget === e.target) setDragging(false);
        }}
        onDrop={onDrop}
      >
        <div className="grid lg:grid-cols-[minmax(0,1fr)_300px] lg:grid-rows-[auto_1fr]">
          <div className="min-w-0 px-5 pt-5 pb-3 lg:col-start-1 lg:row-start-1">
            <TitleEditor ticket={ticket} onSave={(title) => save({ title })} />
            <DescriptionEditor ticket={ticket} onSave={(description) => save({ description })} />
          </div>
          <aside
            className="border-y border-line p-4 lg:col-start-2 lg:row-span-2 lg:row-start-1 lg:border-y-0 lg:border-l"
            aria-label="Properties"
          >
            <Properties project={project} ticket={ticket} save={save} />
          </aside>
          <div className="min-w-0 px-5 pb-5 lg:col-start-1 lg:row-start-2">
            <Subtasks project={project} ticket={ticket} />
            <Links project={project} ticket={ticket} />
            <Attachments
              project={project}
              ticket={ticket}
              registerUpload={(fn) => (uploadRef.current = fn)}
            />
            <Activity project={project} ticket={ticket} />
          </div>
        </div>
      </div>
      {confirmDelete && (
        <Dialog title={`Delete ${ticket.key}?`} onClose={() => setConfirmDelete(false)} width="max-w-sm">
          <p className="mb-4 text-muted">
            The ticket, its comments and its files are deleted for everyone. Its subtasks stay, without a
            parent.
          </p>
          <div className="flex justify-end gap-2">
            <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
            <Button
              variant="danger"
              disabled={del.isPending}
              onClick={() =>
                del.mutate(ticket.id, {
                  onSuccess: () => {
                    toast.show(`Deleted ${ticket.key}`);
                    onClose();
                  },
                  onError: (err) => toast.error(`Could not delete ${ticket.key}: ${errorText(err)}`),
                })
              }
            >
              Delete ticket
            </Button>
          </div>
        </Dialog>
      )}
    </>
  );
}

function TitleEditor({ ticket, onSave }: { ticket: FullTicket; onSave: (title: string) => void }) {
  const [value, setValue] = useState(ticket.title);
  useEffect(() => setValue(ticket.title), [ticket.title]);
  const commit = () => {
    const v = value.trim();
    if (!v) return setValue(ticket.title);
    if (v !== ticket.title) onSave(v);
  };
  return (
    <textarea
      aria-label="Title"
      data-testid="title-input"
      rows={1}
      value={value}
      maxLength={LIMITS.ticketTitleMax}
      onChange={(e) => setValue(e.target.value.replace(/\n/g, ' '))}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          (e.target as HTMLTextAreaElement).blur();
        } else if (e.key === 'Escape') {
          e.preventDefault();
          setValue(ticket.title);
          (e.target as HTMLTextAreaElement).blur();
        }
      }}
      className="field-sizing-content w-full resize-none rounded-md border border-transparent bg-transparent px-1 py-0.5 text-[18px] font-semibold text-fg hover:border-line focus:border-accent focus:outline-none"
    />
  );
}

function MarkdownEditor({
  initial,
  onSave,
  onCancel,
  saveLabel = 'Save',
  placeholder,
  max,
  testId,
}: {
  initial: string;
  onSave: (text: string) => void | Promise<void>;
  onCancel?: () => void;
  saveLabel?: string;
  placeholder?: string;
  max: number;
  testId?: string;
}) {
  const [text, setText] = useState(initial);
  const [tab, setTab] = useState<'write' | 'preview'>('write');
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    try {
      await onSave(text);
      if (!onCancel) setText('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="rounded-md border border-line bg-surface">
      <div className="flex gap-1 border-b border-line px-2 pt-1.5" role="tablist">
        {(['write', 'preview'] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            onClick={() => setTab(t)}
            className={`rounded-t px-2 pb-1.5 text-[12px] ${tab === t ? 'border-b-2 border-accent font-medium text-fg' : 'text-muted hover:text-fg'}`}
          >
            {t === 'write' ? 'Write' : 'Preview'}
          </button>
        ))}
        <span className="ml-auto self-center text-[11px] text-faint">Markdown</span>
      </div>
      {tab === 'write' ? (
        <Textarea
          autoFocus={!!onCancel}
          data-testid={testId}
          className="min-h-28 rounded-none border-0 focus:border-0"
          value={text}
          maxLength={max}
          placeholder={placeholder}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              if (text.trim() || onCancel) submit();
            } else if (e.key === 'Escape' && onCancel) {
              e.preventDefault();
              onCancel();
            }
          }}
        />
      ) : (
        <div className="min-h-28 px-3 py-2">
          {text.trim() ? <Markdown source={text} /> : <span className="text-faint">Nothing to preview</span>}
        </div>
      )}
      <div className="flex items-center justify-end gap-2 border-t border-line px-2 py-1.5">
        <span className="mr-auto text-[11px] text-faint">Ctrl+Enter to {saveLabel.toLowerCase()}</span>
        {onCancel && (
          <Button size="sm" variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        )}
        <Button size="sm" variant="primary" disabled={busy || (!onCancel && !text.trim())} onClick={submit}>
          {saveLabel}
        </Button>
      </div>
    </div>
  );
}

function DescriptionEditor({
  ticket,
  onSave,
}: {
  ticket: FullTicket;
  onSave: (description: string | null) => void;
}) {
  const [editing, setEditing] = useState(false);
  return (
    <section className="mt-3" aria-label="Description">
      {editing ? (
        <MarkdownEditor
          initial={ticket.description ?? ''}
          max={LIMITS.ticketDescriptionMax}
          testId="description-input"
          placeholder="Describe the work in Markdown…"
          onCancel={() => setEditing(false)}
          onSave={(text) => {
            if (text !== (ticket.description ?? '')) onSave(text.trim() ? text : null);
            setEditing(false);
          }}
        />
      ) : (
        // biome-ignore lint/a11y/useSemanticElements: the rendered Markdown (block content, links) is itself the control that opens the editor
        <div
          role="button"
          tabIndex={0}
          aria-label="Edit description"
          data-testid="description"
          onClick={(e) => {
            if ((e.target as HTMLElement).closest('a')) return;
            setEditing(true);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              setEditing(true);
            }
          }}
          className="min-h-12 cursor-text rounded-md border border-transparent px-1 py-1 hover:border-line"
        >
          {ticket.description ? (
            <Markdown source={ticket.description} />
          ) : (
            <span className="text-faint">Add a description…</span>
          )}
        </div>
      )}
    </section>
  );
}

function SectionTitle({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="mt-6 mb-2 flex items-center gap-2">
      <h3 className="flex-1 text-[12px] font-semibold text-muted">{children}</h3>
      {action}
    </div>
  );
}

function Subtasks({ project, ticket }: { project: Project; ticket: FullTicket }) {
  const tickets = useTickets(project.id);
  const columns = useColumns(project.id);
  const create = useCreateTicket(project.id);
  const toast = useToast();
  const [adding, setAdding] = useState(false);
  const [title, setTitle] = useState('');
  const subtasks = (tickets.data ?? [])
    .filter((t) => t.parentId === ticket.id)
    .sort((a, b) => a.number - b.number);
  const colName = (id: string) => columns.data?.find((c) => c.id === id)?.name ?? '';
  const lastColumn = columns.data?.[columns.data.length - 1]?.id;
  const done = subtasks.filter((t) => t.columnId === lastColumn).length;
  const add = () => {
    const t = title.trim();
    if (!t) return;
    setTitle('');
    create.mutate(
      { title: t, type: 'Subtask', parentId: ticket.id, sprintId: ticket.sprintId ?? undefined },
      {
        onError: (err) => {
          setTitle(t);
          toast.error(`Could not add the subtask: ${errorText(err)}`);
        },
      },
    );
  };
  return (
    <section aria-label="Subtasks">
      <SectionTitle
        action={
          <Button size="sm" variant="ghost" onClick={() => setAdding(true)}>
            Add subtask
          </Button>
        }
      >
        Subtasks{' '}
        {subtasks.length > 0 && (
          <span className="font-normal text-faint">
            {done}/{subtasks.length} done
          </span>
        )}
      </SectionTitle>
      <ul className="flex flex-col">
        {subtasks.map((s) => (
          <li key={s.id}>
            <Link
              href={`/projects/${project.key}/${s.key}`}
              className="flex items-center gap-2 rounded px-1 py-1 hover:bg-hover"
            >
              <TypeIcon type={s.type} />
              <span className="font-mono text-[11px] text-faint">{s.key}</span>
              <span className="min-w-0 flex-1 truncate">{s.title}</span>
              <span className="text-[11px] text-muted">{colName(s.columnId)}</span>
            </Link>
          </li>
        ))}
        {subtasks.length === 0 && !adding && <li className="px-1 text-faint">No subtasks</li>}
      </ul>
      {adding && (
        <Input
          autoFocus
          aria-label="Subtask title"
          placeholder="Subtask title, then Enter"
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            } else if (e.key === 'Escape') {
              e.preventDefault();
              setAdding(false);
            }
          }}
          className="mt-1"
        />
      )}
    </section>
  );
}

function Links({ project, ticket }: { project: Project; ticket: FullTicket }) {
  const qc = useQueryClient();
  const toast = useToast();
  const tickets = useTickets(project.id);
  const [adding, setAdding] = useState(false);
  const [linkType, setLinkType] = useState<LinkType>('relates_to');
  const [query, setQuery] = useState('');
  const [busy, setBusy] = useState(false);
  const links = ticket.links ?? [];
  const refresh = () => qc.invalidateQueries({ queryKey: ['ticket', project.id] });
  const candidates = useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q) return [];
    return (tickets.data ?? [])
      .filter(
        (t) => t.id !== ticket.id && (t.key.toLowerCase().includes(q) || t.title.toLowerCase().includes(q)),
      )
      .slice(0, 8);
  }, [query, tickets.data, ticket.id]);
  const add = async (target: string) => {
    setBusy(true);
    try {
      await createLink(project.id, ticket.id, target, linkType);
      setQuery('');
      setAdding(false);
      refresh();
    } catch (err) {
      toast.error(`Could not add the link: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (linkId: string) => {
    try {
      await deleteLink(project.id, ticket.id, linkId);
      refresh();
    } catch (err) {
      toast.error(`Could not remove the link: ${errorText(err)}`);
    }
  };
  const typedKey = /^[A-Za-z0-9]{2,10}-\d+$/.test(query.trim()) ? query.trim().toUpperCase() : null;
  return (
    <section aria-label="Links">
      <SectionTitle
        action={
          <Button size="sm" variant="ghost" onClick={() => setAdding((a) => !a)}>
            Link ticket
          </Button>
        }
      >
        Links
      </SectionTitle>
      {adding && (
        <div className="mb-2 flex flex-col gap-1.5 rounded-md border border-line bg-surface p-2">
          <div className="flex gap-2">
            <Select
              aria-label="Link type"
              className="w-40"
              value={linkType}
              onChange={(e) => setLinkType(e.target.value as LinkType)}
            >
              {LINK_TYPES.map((l) => (
                <option key={l} value={l}>
                  {LINK_LABELS[l]}
                </option>
              ))}
            </Select>
            <Input
              autoFocus
              aria-label="Find a ticket by key or title"
              placeholder="Key (PROJ-12) or title…"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  const exact = candidates.find((c) => c.key === query.trim().toUpperCase());
                  if (exact) add(exact.id);
                  else if (typedKey) add(typedKey);
                  else if (candidates[0]) add(candidates[0].id);
                }
              }}
            />
          </div>
          <ul className="flex flex-col">
            {candidates.map((c) => (
              <li key={c.id}>
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => add(c.id)}
                  className="flex w-full items-center gap-2 rounded px-1 py-1 text-left hover:bg-hover"
                >
                  <TypeIcon type={c.type} />
                  <span className="font-mono text-[11px] text-faint">{c.key}</span>
                  <span className="min-w-0 flex-1 truncate">{c.title}</span>
                </button>
              </li>
            ))}
            {typedKey && !candidates.some((c) => c.key === typedKey) && (
              <li>
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => add(typedKey)}
                  className="w-full rounded px-1 py-1 text-left hover:bg-hover"
                >
                  Link {typedKey}
                </button>
              </li>
            )}
          </ul>
        </div>
      )}
      <ul className="flex flex-col">
        {links.map((l) => (
          <li key={l.id} className="group flex items-center gap-2 rounded px-1 py-1 hover:bg-hover">
            <span className="w-28 shrink-0 text-[12px] text-muted">
              {LINK_LABELS[l.linkType] ?? l.linkType}
            </span>
            <TypeIcon type={l.ticket.type} />
            <Link
              href={`/projects/${l.ticket.key.split('-')[0]}/${l.ticket.key}`}
              className="font-mono text-[11px] text-faint hover:text-fg"
            >
              {l.ticket.key}
            </Link>
            <span className="min-w-0 flex-1 truncate">{l.ticket.title}</span>
            <button
              type="button"
              aria-label={`Remove link to ${l.ticket.key}`}
              onClick={() => remove(l.id)}
              className="rounded px-1 text-faint opacity-0 group-hover:opacity-100 hover:text-danger focus:opacity-100"
            >
              ×
            </button>
          </li>
        ))}
        {links.length === 0 && !adding && <li className="px-1 text-faint">No linked tickets</li>}
      </ul>
    </section>
  );
}

interface Upload {
  id: number;
  name: string;
  progress: number;
  error?: string;
}
let uploadSeq = 1;

function Attachments({
  project,
  ticket,
  registerUpload,
}: {
  project: Project;
  ticket: FullTicket;
  registerUpload: (fn: (files: FileList | File[]) => void) => void;
}) {
  const qc = useQueryClient();
  const toast = useToast();
  const attachments = useAttachments(project.id, ticket.id);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [confirm, setConfirm] = useState<Attachment | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const start = (files: FileList | File[]) => {
    for (const file of Array.from(files)) {
      const id = uploadSeq++;
      setUploads((u) => [...u, { id, name: file.name, progress: 0 }]);
      uploadAttachment(project.id, ticket.id, file, (p) =>
        setUploads((u) => u.map((x) => (x.id === id ? { ...x, progress: p } : x))),
      )
        .then(() => {
          setUploads((u) => u.filter((x) => x.id !== id));
          qc.invalidateQueries({ queryKey: qk.attachments(ticket.id) });
        })
        .catch((err) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, error: errorText(err) } : x))));
    }
  };
  registerUpload(start);

  const remove = async (a: Attachment) => {
    setConfirm(null);
    try {
      await deleteAttachment(project.id, ticket.id, a.id);
      qc.invalidateQueries({ queryKey: qk.attachments(ticket.id) });
    } catch (err) {
      toast.error(`Could not delete ${a.filename}: ${errorText(err)}`);
    }
  };

  return (
    <section aria-label="Attachments">
      <SectionTitle
        action={
          <Button size="sm" variant="ghost" onClick={() => input.current?.click()}>
            Upload
          </Button>
        }
      >
        Attachments
      </SectionTitle>
      <input
        ref={input}
        type="file"
        multiple
        className="sr-only"
        aria-label="Upload files"
        data-testid="attachment-input"
        onChange={(e) => {
          if (e.target.files?.length) start(e.target.files);
          e.target.value = '';
        }}
      />
      {attachments.isError && <p className="text-danger">{errorText(attachments.error)}</p>}
      <ul className="grid grid-cols-2 gap-2 sm:grid-cols-3">
        {attachments.data?.map((a) => (
          <li
            key={a.id}
            className="group relative overflow-hidden rounded-md border border-line bg-surface"
            data-testid="attachment"
          >
            <a href={url(a.url)} download={a.filename} className="block" title={`Download ${a.filename}`}>
              {a.mimeType.startsWith('image/') ? (
                <img
                  src={url(a.url)}
                  alt={a.filename}
                  loading="lazy"
                  className="h-20 w-full bg-surface-2 object-cover"
                />
              ) : (
                <div className="flex h-20 items-center justify-center bg-surface-2 font-mono text-[11px] text-muted uppercase">
                  {a.filename.split('.').pop()}
                </div>
              )}
              <div className="px-2 py-1">
                <div className="truncate text-[12px]">{a.filename}</div>
                <div className="text-[11px] text-faint">{formatBytes(a.size)}</div>
              </div>
            </a>
            <button
              type="button"
              aria-label={`Delete ${a.filename}`}
              onClick={() => setConfirm(a)}
              className="absolute top-1 right-1 rounded bg-surface px-1.5 text-faint opacity-0 shadow-pop group-hover:opacity-100 hover:text-danger focus:opacity-100"
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      {uploads.map((u) => (
        <div
          key={u.id}
          className="mt-2 rounded-md border border-line bg-surface px-2 py-1.5"
          data-testid="upload-progress"
        >
          <div className="flex items-center gap-2 text-[12px]">
            <span className="min-w-0 flex-1 truncate">{u.name}</span>
            {u.error ? (
              <>
                <span role="alert" className="text-danger">
                  {u.error}
                </span>
                <button
                  type="button"
                  className="text-faint hover:text-fg"
                  aria-label="Dismiss"
                  onClick={() => setUploads((x) => x.filter((y) => y.id !== u.id))}
                >
                  ×
                </button>
              </>
            ) : (
              <span className="text-faint">{Math.round(u.progress * 100)}%</span>
            )}
          </div>
          {!u.error && (
            <progress
              className="mt-1 h-1 w-full accent-[var(--accent)]"
              value={Math.round(u.progress * 100)}
              max={100}
              aria-label={`Uploading ${u.name}`}
            />
          )}
        </div>
      ))}
      {attachments.data?.length === 0 && uploads.length === 0 && (
        <button
          type="button"
          onClick={() => input.current?.click()}
          className="w-full rounded-md border border-dashed border-line px-3 py-3 text-center text-faint hover:border-line-strong hover:text-muted"
        >
          Drop files here or click to upload
        </button>
      )}
      {confirm && (
        <Dialog title={`Delete ${confirm.filename}?`} onClose={() => setConfirm(null)} width="max-w-sm">
          <p className="mb-4 text-muted">The file is removed for everyone.</p>
          <div className="flex justify-end gap-2">
            <Button onClick={() => setConfirm(null)}>Cancel</Button>
            <Button variant="danger" onClick={() => remove(confirm)}>
              Delete file
            </Button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

function Activity({ project, ticket }: { project: Project; ticket: FullTicket }) {
  const [tab, setTab] = useState<'comments' | 'history'>('comments');
  return (
    <section aria-label="Activity" className="mt-6">
      <div className="mb-3 flex gap-3 border-b border-line" role="tablist">
        {(['comments', 'history'] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            onClick={() => setTab(t)}
            className={`-mb-px pb-1.5 text-[12px] ${tab === t ? 'border-b-2 border-accent font-semibold text-fg' : 'text-muted hover:text-fg'}`}
          >
            {t === 'comments'
              ? `Comments${ticket.commentCount ? ` (${ticket.commentCount})` : ''}`
              : 'History'}
          </button>
        ))}
      </div>
      {tab === 'comments' ? (
        <Comments project={project} ticket={ticket} />
      ) : (
        <History project={project} ticket={ticket} />
      )}
    </section>
  );
}

function Comments({ project, ticket }: { project: Project; ticket: FullTicket }) {
  const qc = useQueryClient();
  const toast = useToast();
  const comments = useComments(project.id, ticket.id);
  const session = useSession();
  const members = useMembers(project.id);
  const me = session.data?.user;
  const myRole = members.data?.find((m) => m.userId === me?.id)?.role;
  const canModerate = me?.isSystemAdmin || myRole === 'owner' || myRole === 'admin';
  const [editing, setEditing] = useState<string | null>(null);
  const refresh = () => {
    qc.invalidateQueries({ queryKey: qk.comments(ticket.id) });
    qc.invalidateQueries({ queryKey: qk.ticket(project.id, ticket.key) });
  };

  const post = async (content: string) => {
    try {
      const created = await addComment(project.id, ticket.id, content);
      qc.setQueryData<Comment[]>(qk.comments(ticket.id), (list) => (list ? [...list, created] : [created]));
      refresh();
    } catch (err) {
      toast.error(`Could not post the comment: ${errorText(err)}`);
      throw err;
    }
  };
  const edit = async (c: Comment, content: string) => {
    try {
      await editComment(project.id, ticket.id, c.id, content);
      setEditing(null);
      refresh();
    } catch (err) {
      toast.error(`Could not save the comment: ${errorText(err)}`);
    }
  };
  const remove = async (c: Comment) => {
    if (!window.confirm('Delete this comment?')) return;
    try {
      await deleteComment(project.id, ticket.id, c.id);
      qc.setQueryData<Comment[]>(qk.comments(ticket.id), (list) => list?.filter((x) => x.id !== c.id));
      refresh();
    } catch (err) {
      toast.error(`Could not delete the comment: ${errorText(err)}`);
    }
  };

  return (
    <div className="flex flex-col gap-3">
      {comments.isPending && <Skeleton className="h-16" />}
      {comments.isError && <p className="text-danger">{errorText(comments.error)}</p>}
      {comments.data?.length === 0 && <p className="text-faint">No comments yet.</p>}
      <ol className="flex flex-col gap-3">
        {comments.data?.map((c) => (
          <li key={c.id} className="flex gap-2.5" data-testid="comment">
            <Avatar name={c.author?.name} src={c.author?.avatar} size={24} />
            <div className="min-w-0 flex-1">
              <div className="flex items-center gap-2 text-[12px]">
                <span className="font-medium">{c.author?.name ?? 'Deleted user'}</span>
                <time dateTime={c.createdAt} title={fullTime(c.createdAt)} className="text-faint">
                  {relativeTime(c.createdAt)}
                  {c.updatedAt !== c.createdAt ? ' · edited' : ''}
                </time>
                <span className="flex-1" />
                {c.author?.id === me?.id && editing !== c.id && (
                  <button type="button" className="text-faint hover:text-fg" onClick={() => setEditing(c.id)}>
                    Edit
                  </button>
                )}
                {(c.author?.id === me?.id || canModerate) && (
                  <button type="button" className="text-faint hover:text-danger" onClick={() => remove(c)}>
                    Delete
                  </button>
                )}
              </div>
              {editing === c.id ? (
                <div className="mt-1">
                  <MarkdownEditor
                    initial={c.content}
                    max={LIMITS.commentMax}
                    onCancel={() => setEditing(null)}
                    onSave={(text) => edit(c, text)}
                  />
                </div>
              ) : (
                <div className="mt-0.5">
                  <Markdown source={c.content} />
                </div>
              )}
            </div>
          </li>
        ))}
      </ol>
      <MarkdownEditor
        initial=""
        max={LIMITS.commentMax}
        saveLabel="Comment"
        placeholder="Write a comment…"
        onSave={post}
        testId="comment-input"
      />
    </div>
  );
}

function History({ project, ticket }: { project: Project; ticket: FullTicket }) {
  const history = useHistory(project.id, ticket.id);
  if (history.isPending) return <Skeleton className="h-16" />;
  if (history.isError) return <p className="text-danger">{errorText(history.error)}</p>;
  return (
    <ol className="flex flex-col gap-2 border-l border-line pl-4" data-testid="history">
      <li className="relative text-[12px] text-muted">
        <span className="absolute top-1.5 -left-[19px] h-1.5 w-1.5 rounded-full bg-line-strong" />
        {ticket.reporter?.name ?? 'Someone'} created the ticket ·{' '}
        <time title={fullTime(ticket.createdAt)}>{relativeTime(ticket.createdAt)}</time>
      </li>
      {[...history.data].reverse().map((h) => (
        <li key={h.id} className="relative text-[12px] text-muted">
          <span className="absolute top-1.5 -left-[19px] h-1.5 w-1.5 rounded-full bg-line-strong" />
          <span className="text-fg">{h.changedBy?.name ?? 'Someone'}</span> changed{' '}
          <span className="text-fg">{h.field}</span>
          {h.field !== 'description' && (
            <>
              {' '}
              from <span className="text-fg">{h.oldValue ?? 'none'}</span> to{' '}
              <span className="text-fg">{h.newValue ?? 'none'}</span>
            </>
          )}{' '}
          · <time title={fullTime(h.changedAt)}>{relativeTime(h.changedAt)}</time>
        </li>
      ))}
    </ol>
  );
}

function Prop({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[6.25rem_minmax(0,1fr)] items-center gap-2 py-1">
      <span className="text-[12px] text-muted">{label}</span>
      <div className="min-w-0">{children}</div>
    </div>
  );
}

const propInput = `${inputClass} h-7 border-transparent bg-transparent hover:border-line px-1.5`;

function TextProp({
  label,
  value,
  onSave,
  placeholder,
}: {
  label: string;
  value: string | null;
  onSave: (v: string | null) => void;
  placeholder?: string;
}) {
  const [v, setV] = useState(value ?? '');
  useEffect(() => setV(value ?? ''), [value]);
  return (
    <Prop label={label}>
      <input
        aria-label={label}
        className={propInput}
        value={v}
        placeholder={placeholder ?? 'None'}
        maxLength={LIMITS.ticketShortFieldMax}
        onChange={(e) => setV(e.target.value)}
        onBlur={() => {
          const next = v.trim() || null;
          if (next !== (value ?? null)) onSave(next);
        }}
        onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
      />
    </Prop>
  );
}

function SelectProp({
  label,
  value,
  onSave,
  children,
}: {
  label: string;
  value: string;
  onSave: (v: string) => void;
  children: ReactNode;
}) {
  return (
    <Prop label={label}>
      <select
        aria-label={label}
        className={`${propInput} pr-5`}
        value={value}
        onChange={(e) => onSave(e.target.value)}
      >
        {children}
      </select>
    </Prop>
  );
}

function descendantsOf(list: Ticket[], id: string): Set<string> {
  const out = new Set<string>();
  const walk = (pid: string) => {
    for (const t of list)
      if (t.parentId === pid && !out.has(t.id)) {
        out.add(t.id);
        walk(t.id);
      }
  };
  walk(id);
  return out;
}

function Properties({
  project,
  ticket,
  save,
}: {
  project: Project;
  ticket: FullTicket;
  save: (p: TicketPatch) => void;
}) {
  const columns = useColumns(project.id);
  const members = useMembers(project.id);
  const sprints = useSprints(project.id);
  const tickets = useTickets(project.id);
  const parentOptions = useMemo(() => {
    const list = tickets.data ?? [];
    const banned = descendantsOf(list, ticket.id);
    return list.filter((t) => t.id !== ticket.id && !banned.has(t.id)).sort((a, b) => a.number - b.number);
  }, [tickets.data, ticket.id]);
  const openSprints = (sprints.data ?? []).filter(
    (s) => s.status !== 'completed' || s.id === ticket.sprintId,
  );
  const memberName = (m: Member) => m.user.name ?? m.user.username;

  return (
    <div className="flex flex-col" data-testid="properties">
      <SelectProp label="Status" value={ticket.columnId} onSave={(columnId) => save({ columnId })}>
        {columns.data?.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </SelectProp>
      <SelectProp
        label="Priority"
        value={ticket.priority}
        onSave={(priority) => save({ priority: priority as FullTicket['priority'] })}
      >
        {PRIORITIES.map((p) => (
          <option key={p}>{p}</option>
        ))}
      </SelectProp>
      <SelectProp
        label="Type"
        value={ticket.type}
        onSave={(type) => save({ type: type as FullTicket['type'] })}
      >
        {TICKET_TYPES.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </SelectProp>
      <Prop label="Assignee">
        <div className="flex items-center gap-1">
          {ticket.assignee && <Avatar name={ticket.assignee.name} src={ticket.assignee.avatar} size={18} />}
          <select
            aria-label="Assignee"
            className={`${propInput} pr-5`}
            value={ticket.assigneeId ?? ''}
            onChange={(e) => save({ assigneeId: e.target.value || null })}
          >
            <option value="">Unassigned</option>
            {members.data?.map((m) => (
              <option key={m.userId} value={m.userId}>
                {memberName(m)}
              </option>
            ))}
          </select>
        </div>
      </Prop>
      <SelectProp label="Sprint" value={ticket.sprintId ?? ''} onSave={(v) => save({ sprintId: v || null })}>
        <option value="">Backlog</option>
        {openSprints.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
            {s.status === 'active' ? ' (active)' : ''}
          </option>
        ))}
      </SelectProp>
      <SelectProp
        label="Story points"
        value={ticket.storyPoints == null ? '' : String(ticket.storyPoints)}
        onSave={(v) => save({ storyPoints: v ? Number(v) : null })}
      >
        <option value="">None</option>
        {LIMITS.storyPoints.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </SelectProp>
      <Prop label="Labels">
        <LabelPicker project={project} ticket={ticket} save={save} />
      </Prop>
      <SelectProp label="Parent" value={ticket.parentId ?? ''} onSave={(v) => save({ parentId: v || null })}>
        <option value="">None</option>
        {parentOptions.map((t) => (
          <option key={t.id} value={t.id}>
            {t.key} {t.title.length > 40 ? `${t.title.slice(0, 40)}…` : t.title}
          </option>
        ))}
      </SelectProp>
      <TextProp
        label="Estimate"
        value={ticket.estimate}
        placeholder="e.g. 2h, 1d"
        onSave={(estimate) => save({ estimate })}
      />
      <Prop label="Start date">
        <input
          aria-label="Start date"
          type="date"
          className={propInput}
          value={ticket.startDate ?? ''}
          onChange={(e) => save({ startDate: e.target.value || null })}
        />
      </Prop>
      <Prop label="Due date">
        <input
          aria-label="Due date"
          type="date"
          className={propInput}
          value={ticket.dueDate ?? ''}
          onChange={(e) => save({ dueDate: e.target.value || null })}
        />
      </Prop>
      <TextProp
        label="Environment"
        value={ticket.environment}
        placeholder="e.g. Production"
        onSave={(environment) => save({ environment })}
      />
      <TextProp
        label="Affected version"
        value={ticket.affectedVersion}
        onSave={(affectedVersion) => save({ affectedVersion })}
      />
      <TextProp label="Fix version" value={ticket.fixVersion} onSave={(fixVersion) => save({ fixVersion })} />
      <Prop label="Watchers">
        <WatcherPicker members={members.data ?? []} ticket={ticket} save={save} />
      </Prop>
      <div className="mt-3 flex flex-col gap-1 border-t border-line pt-3 text-[12px] text-faint">
        {ticket.reporter && (
          <span className="flex items-center gap-1.5">
            Reported by <Avatar name={ticket.reporter.name} src={ticket.reporter.avatar} size={16} />{' '}
            {ticket.reporter.name}
          </span>
        )}
        <span title={fullTime(ticket.createdAt)}>Created {relativeTime(ticket.createdAt)}</span>
        <span title={fullTime(ticket.updatedAt)}>Updated {relativeTime(ticket.updatedAt)}</span>
        {ticket.isCarriedOver && <span>Carried over {ticket.carriedOverCount} time(s)</span>}
      </div>
    </div>
  );
}

function LabelPicker({
  project,
  ticket,
  save,
}: {
  project: Project;
  ticket: FullTicket;
  save: (p: TicketPatch) => void;
}) {
  const qc = useQueryClient();
  const toast = useToast();
  const labels = useLabels(project.id);
  const [query, setQuery] = useState('');
  const selected = new Set(ticket.labels.map((l) => l.id));
  const toggle = (l: Label) => {
    const next = new Set(selected);
    if (next.has(l.id)) next.delete(l.id);
    else next.add(l.id);
    save({ labelIds: [...next] });
  };
  const create = async () => {
    const name = query.trim();
    if (!name) return;
    try {
      const label = await createLabel(project.id, { name });
      qc.setQueryData<Label[]>(qk.labels(project.id), (list) =>
        [...(list ?? []), label].sort((a, b) => a.name.localeCompare(b.name)),
      );
      setQuery('');
      save({ labelIds: [...selected, label.id] });
    } catch (err) {
      toast.error(`Could not create the label: ${errorText(err)}`);
    }
  };
  const q = query.trim().toLowerCase();
  const shown = (labels.data ?? []).filter((l) => !q || l.name.toLowerCase().includes(q));
  const exact = (labels.data ?? []).some((l) => l.name.toLowerCase() === q);
  return (
    <Popover
      label="Edit labels"
      className="flex min-h-7 w-full flex-wrap items-center gap-1 rounded-md border border-transparent px-1.5 py-1 text-left hover:border-line"
      panelClass="w-60"
      align="right"
      button={
        ticket.labels.length ? (
          ticket.labels.map((l) => <LabelChip key={l.id} name={l.name} color={l.color} />)
        ) : (
          <span className="text-faint">None</span>
        )
      }
    >
      {() => (
        <div className="flex flex-col gap-1">
          <Input
            autoFocus
            aria-label="Find or create a label"
            placeholder="Find or create a label…"
            value={query}
            maxLength={LIMITS.labelNameMax}
            className="h-7"
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                if (shown.length === 1 && exact) toggle(shown[0]);
                else if (!exact) create();
              }
            }}
          />
          <ul className="max-h-56 overflow-y-auto">
            {shown.map((l) => (
              <li key={l.id}>
                <label className="flex cursor-pointer items-center gap-2 rounded px-1.5 py-1 hover:bg-hover">
                  <input type="checkbox" checked={selected.has(l.id)} onChange={() => toggle(l)} />
                  <span aria-hidden="true" className="h-2 w-2 rounded-full" style={{ background: l.color }} />
                  <span className="truncate">{l.name}</span>
                </label>
              </li>
            ))}
          </ul>
          {q && !exact && (
            <button
              type="button"
              onClick={create}
              className="rounded px-1.5 py-1 text-left text-accent hover:bg-hover"
            >
              Create label “{query.trim()}”
            </button>
          )}
          {!q && shown.length === 0 && (
            <p className="px-1.5 py-1 text-faint">No labels yet: type a name to create one.</p>
          )}
        </div>
      )}
    </Popover>
  );
}

function WatcherPicker({
  members,
  ticket,
  save,
}: {
  members: Member[];
  ticket: FullTicket;
  save: (p: TicketPatch) => void;
}) {
  const selected = new Set(ticket.watchers.map((w) => w.id));
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    save({ watcherIds: [...next] });
  };
  return (
    <Popover
      label="Edit watchers"
      className="flex min-h-7 w-full items-center gap-1 rounded-md border border-transparent px-1.5 py-1 text-left hover:border-line"
      panelClass="w-56"
      align="right"
      button={
        ticket.watchers.length ? (
          <span className="truncate">{ticket.watchers.map((w) => w.name).join(', ')}</span>
        ) : (
          <span className="text-faint">None</span>
        )
      }
    >
      {() => (
        <ul className="max-h-56 overflow-y-auto">
          {members.map((m) => (
            <li key={m.userId}>
              <label className="flex cursor-pointer items-center gap-2 rounded px-1.5 py-1 hover:bg-hover">
                <input type="checkbox" checked={selected.has(m.userId)} onChange={() => toggle(m.userId)} />
                <Avatar name={m.user.name ?? m.user.username} src={m.user.avatar} size={16} />
                <span className="truncate">{m.user.name ?? m.user.username}</span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </Popover>
  );
}
