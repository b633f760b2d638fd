/** The ticket drawer's properties panel: fields, label and watcher pickers. */
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { LIMITS } from '../../shared/limits';
import { isCalendarDate } from '../../shared/rules';
import { errorText } from '../api/client';
import { useColumns } from '../api/columns';
import { useCreateLabel, useLabels } from '../api/labels';
import { useMembers } from '../api/members';
import { useSprints } from '../api/sprints';
import { type TicketPatch, useTickets } from '../api/tickets';
import {
  type FullTicket,
  type Label,
  type Member,
  PRIORITIES,
  type Project,
  TICKET_TYPES,
  type Ticket,
} from '../api/types';
import { Popover } from '../components/Popover';
import { fullTime, relativeTime } from '../components/time';
import { useToast } from '../components/toast';
import { Avatar, Input, inputClass, LabelChip } from '../components/ui';

export function Prop({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[6.25rem_minmax(0,1fr)] items-center gap-2 py-1">
      <span className="text-[12px] text-muted">{label}</span>
      <div className="min-w-0">{children}</div>
    </div>
  );
}

export const propInput = `${inputClass} h-7 border-transparent bg-transparent hover:border-line px-1.5`;

export function TextProp({
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

export function SelectProp({
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

export function descendantsOf(list: Ticket[], id: string): Set<string> {
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

export function Properties({
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
      <DateProp label="Start date" value={ticket.startDate} onSave={(startDate) => save({ startDate })} />
      <DateProp label="Due date" value={ticket.dueDate} onSave={(dueDate) => save({ dueDate })} />
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
      <TicketFacts ticket={ticket} />
    </div>
  );
}

/** A date field: only whole, real days (the API's rule) are saved, not a half-typed date. */
function DateProp({
  label,
  value,
  onSave,
}: {
  label: string;
  value: string | null;
  onSave: (date: string | null) => void;
}) {
  return (
    <Prop label={label}>
      <input
        aria-label={label}
        type="date"
        className={propInput}
        value={value ?? ''}
        onChange={(e) => {
          if (!e.target.value || isCalendarDate(e.target.value)) onSave(e.target.value || null);
        }}
      />
    </Prop>
  );
}

/** Who reported the ticket, when it was created and updated, and how often it was carried over. */
function TicketFacts({ ticket }: { ticket: FullTicket }) {
  return (
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
  );
}

export function LabelPicker({
  project,
  ticket,
  save,
}: {
  project: Project;
  ticket: FullTicket;
  save: (p: TicketPatch) => void;
}) {
  const toast = useToast();
  const labels = useLabels(project.id);
  const createLabel = useCreateLabel(project.id);
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
      const label = await createLabel.mutateAsync({ name });
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

export function WatcherPicker({
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
