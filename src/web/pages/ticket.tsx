import { type DragEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { Link } from 'wouter';
import { ApiError, errorText } from '../api/client';
import { useMayDeleteTicket } from '../api/members';
import { type TicketPatch, useDeleteTicket, useTicket, useTickets, useUpdateTicket } from '../api/tickets';
import { useUndoDelete } from '../api/trash';
import type { FullTicket, Project } from '../api/types';
import { useToast } from '../components/toast';
import { Button, Dialog, EmptyState, ErrorState, Skeleton } from '../components/ui';
import { useEscape } from '../hooks/shortcuts';
import { useDocumentTitle } from '../hooks/title';
import { Activity } from './ticket-activity';
import { DescriptionEditor, TitleEditor } from './ticket-editors';
import { Properties } from './ticket-properties';
import { Attachments, Links, Subtasks } from './ticket-relations';

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
  useDocumentTitle(ticket.data ? `${ticket.data.key} ${ticket.data.title}` : ticketRef);
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
            {ticket.error instanceof ApiError && ticket.error.status === 404 ? (
              // Asking again will not make it exist: say so plainly, with the way back.
              <EmptyState
                title="Ticket not found"
                action={<Button onClick={onClose}>Back to {project.name}</Button>}
              >
                There is no ticket {ticketRef} in {project.name}. It may have been deleted, or the address is
                mistyped.
              </EmptyState>
            ) : (
              <ErrorState message={errorText(ticket.error)} onRetry={() => ticket.refetch()} />
            )}
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

export function DrawerHeader({
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

export function TicketView({
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
  const undoDelete = useUndoDelete(project.id);
  const toast = useToast();
  const tickets = useTickets(project.id);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const mayDelete = useMayDeleteTicket(project, ticket);
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
        {mayDelete && (
          <Button size="sm" variant="ghost" onClick={() => setConfirmDelete(true)}>
            Delete
          </Button>
        )}
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
            The ticket, its comments and its files are deleted for everyone; project admins can restore it
            from the trash for 30 days. Its subtasks stay, without a parent.
          </p>
          <div className="flex justify-end gap-2">
            <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
            <Button
              variant="danger"
              disabled={del.isPending}
              onClick={() =>
                del.mutate(ticket.id, {
                  onSuccess: (out) => {
                    undoDelete(`Deleted ${ticket.key}`, [out.trashId]);
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
