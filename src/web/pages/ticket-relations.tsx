/** A ticket's subtasks, links to other tickets and attachments (uploads with progress). */
import { useMemo, useRef, useState } from 'react';
import { Link } from 'wouter';
import { parseTicketKey } from '../../shared/rules';
import { useAttachments, useDeleteAttachment, useUploadAttachment } from '../api/attachments';
import { errorText, url } from '../api/client';
import { useColumns } from '../api/columns';
import { useCreateLink, useDeleteLink } from '../api/links';
import { useCreateTicket, useTickets } from '../api/tickets';
import {
  type Attachment,
  type FullTicket,
  LINK_LABELS,
  LINK_TYPES,
  type LinkType,
  type Project,
} from '../api/types';
import { formatBytes } from '../api/upload';
import { TypeIcon } from '../components/icons';
import { useToast } from '../components/toast';
import { Button, Dialog, Input, Select } from '../components/ui';
import { useDoneColumnIds } from '../hooks/project-data';
import { SectionTitle } from './ticket-editors';

export function Subtasks({ project, ticket }: { project: Project; ticket: FullTicket }) {
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
  // Subtask progress counts the project's done columns, as sprints and reports do.
  const doneIds = useDoneColumnIds(project.id);
  const done = subtasks.filter((t) => doneIds.has(t.columnId)).length;
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

export function Links({ project, ticket }: { project: Project; ticket: FullTicket }) {
  const toast = useToast();
  const tickets = useTickets(project.id);
  const createLink = useCreateLink(project.id, ticket.id);
  const deleteLink = useDeleteLink(project.id, ticket.id);
  const [adding, setAdding] = useState(false);
  const [linkType, setLinkType] = useState<LinkType>('relates_to');
  const [query, setQuery] = useState('');
  const [busy, setBusy] = useState(false);
  const links = ticket.links ?? [];
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
      await createLink.mutateAsync({ targetTicketId: target, linkType });
      setQuery('');
      setAdding(false);
    } catch (err) {
      toast.error(`Could not add the link: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (linkId: string) => {
    try {
      await deleteLink.mutateAsync(linkId);
    } catch (err) {
      toast.error(`Could not remove the link: ${errorText(err)}`);
    }
  };
  const typedKey = parseTicketKey(query)?.key ?? null;
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

export interface Upload {
  id: number;
  name: string;
  progress: number;
  error?: string;
}

/** Ids of the uploads under way in this tab. */
let uploadSeq = 1;

export function Attachments({
  project,
  ticket,
  registerUpload,
}: {
  project: Project;
  ticket: FullTicket;
  registerUpload: (fn: (files: FileList | File[]) => void) => void;
}) {
  const toast = useToast();
  const attachments = useAttachments(project.id, ticket.id);
  const upload = useUploadAttachment(project.id, ticket.id);
  const deleteAttachment = useDeleteAttachment(project.id, ticket.id);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [confirm, setConfirm] = useState<Attachment | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const start = (files: FileList | File[]) => {
    for (const file of Array.from(files)) {
      const id = uploadSeq++;
      setUploads((u) => [...u, { id, name: file.name, progress: 0 }]);
      upload
        .mutateAsync({
          file,
          onProgress: (p) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, progress: p } : x))),
        })
        .then(() => setUploads((u) => u.filter((x) => x.id !== id)))
        .catch((err) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, error: errorText(err) } : x))));
    }
  };
  registerUpload(start);

  const remove = async (a: Attachment) => {
    setConfirm(null);
    try {
      await deleteAttachment.mutateAsync(a.id);
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
        <UploadProgress
          key={u.id}
          upload={u}
          dismiss={() => setUploads((x) => x.filter((y) => y.id !== u.id))}
        />
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

/** An upload under way: its progress, or what went wrong (dismissable). */
function UploadProgress({ upload: u, dismiss }: { upload: Upload; dismiss: () => void }) {
  return (
    <div className="mt-2 rounded-md border border-line bg-surface px-2 py-1.5" data-testid="upload-progress">
      <div className="flex items-center gap-2 text-[12px]">
        <span className="min-w-0 flex-1 truncate">{u.name}</span>
        {u.error ? (
          <>
            <span role="alert" className="text-danger">
              {u.error}
            </span>
            <button type="button" className="text-faint hover:text-fg" aria-label="Dismiss" onClick={dismiss}>
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
  );
}
