/** A ticket's activity: comments and the change history. */
import { useState } from 'react';
import { LIMITS } from '../../shared/limits';
import { errorText } from '../api/client';
import { useAddComment, useComments, useDeleteComment, useEditComment } from '../api/comments';
import { useHistory } from '../api/links';
import { useMembers } from '../api/members';
import { useSession } from '../api/session';
import type { Comment, FullTicket, Project } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Markdown } from '../components/Markdown';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Avatar, Skeleton } from '../components/ui';
import { MarkdownEditor } from './ticket-editors';

export function Activity({ project, ticket }: { project: Project; ticket: FullTicket }) {
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

export function Comments({ project, ticket }: { project: Project; ticket: FullTicket }) {
  const toast = useToast();
  const comments = useComments(project.id, ticket.id);
  const addComment = useAddComment(project.id, ticket);
  const editComment = useEditComment(project.id, ticket);
  const deleteComment = useDeleteComment(project.id, ticket);
  const session = useSession();
  const members = useMembers(project.id);
  const me = session.data?.user;
  const myRole = members.data?.find((m) => m.userId === me?.id)?.role;
  const canModerate = me?.isSystemAdmin || myRole === 'owner' || myRole === 'admin';
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Comment | null>(null);

  const post = async (content: string) => {
    try {
      await addComment.mutateAsync(content);
    } catch (err) {
      toast.error(`Could not post the comment: ${errorText(err)}`);
      throw err;
    }
  };
  const edit = async (c: Comment, content: string) => {
    try {
      await editComment.mutateAsync({ commentId: c.id, content });
      setEditing(null);
    } catch (err) {
      toast.error(`Could not save the comment: ${errorText(err)}`);
    }
  };
  // The app's own confirmation (focus kept inside, Escape closes it), not the browser's confirm box.
  const remove = (c: Comment) => deleteComment.mutateAsync(c.id);

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
                  <button
                    type="button"
                    className="text-faint hover:text-danger"
                    onClick={() => setDeleting(c)}
                  >
                    Delete
                  </button>
                )}
              </div>
              {editing === c.id ? (
                <div className="mt-1">
                  <MarkdownEditor
                    initial={c.content}
                    max={LIMITS.commentMax}
                    projectId={project.id}
                    ticketId={ticket.id}
                    onCancel={() => setEditing(null)}
                    onSave={(text) => edit(c, text)}
                  />
                </div>
              ) : (
                <div className="mt-0.5">
                  <Markdown
                    source={c.content}
                    onSourceChange={c.author?.id === me?.id ? (next) => edit(c, next) : undefined}
                  />
                </div>
              )}
            </div>
          </li>
        ))}
      </ol>
      {deleting && (
        <ConfirmDialog
          title="Delete this comment?"
          confirmLabel="Delete comment"
          busyLabel="Deleting…"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          The comment by {deleting.author?.name ?? 'a deleted user'} is removed for everyone.
        </ConfirmDialog>
      )}
      <MarkdownEditor
        initial=""
        max={LIMITS.commentMax}
        saveLabel="Comment"
        projectId={project.id}
        ticketId={ticket.id}
        placeholder="Write a comment…"
        onSave={post}
        testId="comment-input"
      />
    </div>
  );
}

export function History({ project, ticket }: { project: Project; ticket: FullTicket }) {
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
