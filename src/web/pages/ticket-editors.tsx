import { type ClipboardEvent, type DragEvent, type ReactNode, useEffect, useMemo, useState } from 'react';
import { LIMITS } from '../../shared/limits';
import { useUploadAttachment } from '../api/attachments';
import { errorText } from '../api/client';
import { useMembers } from '../api/members';
import type { FullTicket } from '../api/types';
import { Markdown } from '../components/Markdown';
import { MentionTextarea } from '../components/MentionTextarea';
import { useToast } from '../components/toast';
import { Button } from '../components/ui';
import { modShortcut } from '../lib/platform';

/** Markdown for an image link: brackets in the name would end the text early. */
const imageMarkdown = (name: string, src: string) => `![${name.replace(/[[\]\\]/g, '')}](${src})`;

export function TitleEditor({ ticket, onSave }: { ticket: FullTicket; onSave: (title: string) => void }) {
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

export function MarkdownEditor({
  initial,
  onSave,
  onCancel,
  saveLabel = 'Save',
  placeholder,
  max,
  testId,
  projectId,
  ticketId,
}: {
  initial: string;
  onSave: (text: string) => void | Promise<void>;
  onCancel?: () => void;
  saveLabel?: string;
  placeholder?: string;
  max: number;
  testId?: string;
  /** The project whose members `@` offers. */
  projectId?: string;
  /** The ticket that images pasted or dropped into the text are attached to. */
  ticketId?: string;
}) {
  const [text, setText] = useState(initial);
  const toast = useToast();
  const upload = useUploadAttachment(projectId ?? '', ticketId ?? '');
  /**
   * Images pasted or dropped into the text are uploaded as the ticket's attachments (the attachments
   * API, with its checks) and written into the text as Markdown images where the caret was.
   */
  const attachImages = (files: File[], el: HTMLTextAreaElement) => {
    if (!projectId || !ticketId) return false;
    const images = files.filter((f) => f.type.startsWith('image/'));
    if (images.length === 0) return false;
    const at = el.selectionStart ?? text.length;
    const placeholders = images.map((f, i) => `![Uploading ${f.name || 'image'} (${Date.now()}-${i})…]()`);
    setText((t) => `${t.slice(0, at)}${placeholders.join('\n')}${t.slice(at)}`);
    images.forEach((file, i) => {
      upload
        .mutateAsync({ file })
        .then((a) => setText((t) => t.replace(placeholders[i], imageMarkdown(a.filename, a.url))))
        .catch((err) => {
          setText((t) => t.replace(placeholders[i], ''));
          toast.error(`Could not attach ${file.name || 'the image'}: ${errorText(err)}`);
        });
    });
    return true;
  };
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    if (attachImages([...e.clipboardData.files], e.currentTarget)) e.preventDefault();
  };
  const onDrop = (e: DragEvent<HTMLTextAreaElement>) => {
    if (attachImages([...e.dataTransfer.files], e.currentTarget)) {
      e.preventDefault();
      // The drawer attaches files dropped anywhere on it: this one is attached already.
      e.stopPropagation();
    }
  };
  const members = useMembers(projectId);
  const people = useMemo(
    () =>
      (members.data ?? []).map((m) => ({
        username: m.user.username,
        name: m.user.name,
        avatar: m.user.avatar,
      })),
    [members.data],
  );
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
        <MentionTextarea
          autoFocus={!!onCancel}
          data-testid={testId}
          className="min-h-28 rounded-none border-0 focus:border-0"
          value={text}
          onValue={setText}
          people={people}
          maxLength={max}
          placeholder={placeholder}
          onPaste={onPaste}
          onDrop={onDrop}
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
        <span className="mr-auto text-[11px] text-faint">
          {modShortcut('Enter')} to {saveLabel.toLowerCase()}
        </span>
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

export function DescriptionEditor({
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
          projectId={ticket.projectId}
          ticketId={ticket.id}
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
            <Markdown source={ticket.description} onSourceChange={(next) => onSave(next)} />
          ) : (
            <span className="text-faint">Add a description…</span>
          )}
        </div>
      )}
    </section>
  );
}

export function SectionTitle({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="mt-6 mb-2 flex items-center gap-2">
      <h3 className="flex-1 text-[12px] font-semibold text-muted">{children}</h3>
      {action}
    </div>
  );
}
