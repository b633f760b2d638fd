/**
 * Edits many tickets at once through the bulk update endpoint (all or nothing). Each field starts at
 * "No change"; labels can be added, removed or replaced.
 */
import { type FormEvent, type ReactNode, useState } from 'react';
import { errorText } from '../../api/client';
import type { BulkUpdates, SprintActions } from '../../api/sprints';
import type { SprintFull } from '../../api/types';
import { type Column, type Label, type Member, PRIORITIES, TICKET_TYPES, type Ticket } from '../../api/types';
import { FormError } from '../ProjectNav';
import { useToast } from '../toast';
import { Button, ColorDot, Dialog, Field, Select } from '../ui';

type LabelMode = 'keep' | 'add' | 'remove' | 'replace';
const POINTS = [1, 2, 3, 5, 8, 13, 21];

const labelIdsOf = (t: Ticket) => t.labelIds ?? t.labels?.map((l) => l.id) ?? [];

export function BulkEditDialog({
  tickets,
  columns,
  members,
  labels,
  sprints,
  actions,
  onClose,
  onDone,
}: {
  tickets: Ticket[];
  columns: Column[];
  members: Member[];
  labels: Label[];
  sprints: SprintFull[];
  actions: SprintActions;
  onClose: () => void;
  onDone: () => void;
}) {
  const toast = useToast();
  const [column, setColumn] = useState('');
  const [assignee, setAssignee] = useState('');
  const [priority, setPriority] = useState('');
  const [type, setType] = useState('');
  const [sprint, setSprint] = useState('');
  const [points, setPoints] = useState('');
  const [labelMode, setLabelMode] = useState<LabelMode>('keep');
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const updates: BulkUpdates = {};
  if (column) updates.columnId = column;
  if (assignee) updates.assigneeId = assignee === 'none' ? null : assignee;
  if (priority) updates.priority = priority as Ticket['priority'];
  if (type) updates.type = type as Ticket['type'];
  if (sprint) updates.sprintId = sprint === 'backlog' ? null : sprint;
  if (points) updates.storyPoints = points === 'none' ? null : Number(points);
  const labelsChange = labelMode !== 'keep' && (labelMode === 'replace' || chosen.length > 0);
  const anything = Object.keys(updates).length > 0 || labelsChange;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!anything) return;
    setBusy(true);
    setError(null);
    try {
      const ids = tickets.map((t) => t.id);
      const done = `${tickets.length} ticket${tickets.length === 1 ? '' : 's'} updated`;
      // One update: its toast offers the undo. Labels added or removed take one update per
      // resulting label set, and offer no undo.
      if (!labelsChange) {
        await actions.bulkUpdate(ids, updates, done);
      } else if (labelMode === 'replace') {
        await actions.bulkUpdate(ids, { ...updates, labelIds: chosen }, done);
      } else {
        // Adding or removing gives each ticket its own label set: one bulk update per resulting set.
        const groups = labelGroups(tickets, labelMode, chosen);
        for (const g of groups.values())
          await actions.bulkUpdate(g.ids, { ...updates, labelIds: g.labelIds }, false);
        toast.show(done, 'success');
      }
      onDone();
      onClose();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  const open = sprints.filter((s) => s.status !== 'completed');
  return (
    <Dialog title={`Edit ${tickets.length} ticket${tickets.length === 1 ? '' : 's'}`} onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3">
        <p className="text-muted">Fields left at “No change” keep each ticket's own value.</p>
        <div className="grid grid-cols-2 gap-3">
          <ChangeField label="Column" value={column} onChange={setColumn}>
            {columns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </ChangeField>
          <ChangeField label="Sprint" value={sprint} onChange={setSprint}>
            <option value="backlog">Backlog (no sprint)</option>
            {open.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
                {s.status === 'active' ? ' (active)' : ''}
              </option>
            ))}
          </ChangeField>
          <ChangeField label="Assignee" value={assignee} onChange={setAssignee}>
            <option value="none">Unassigned</option>
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.user.name ?? m.user.username}
              </option>
            ))}
          </ChangeField>
          <ChangeField label="Priority" value={priority} onChange={setPriority}>
            {PRIORITIES.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </ChangeField>
          <ChangeField label="Type" value={type} onChange={setType}>
            {TICKET_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </ChangeField>
          <ChangeField label="Story points" value={points} onChange={setPoints}>
            <option value="none">None</option>
            {POINTS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </ChangeField>
        </div>
        <LabelChange
          labels={labels}
          mode={labelMode}
          setMode={setLabelMode}
          chosen={chosen}
          setChosen={setChosen}
        />
        <FormError error={error} />
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy || !anything}>
            {busy ? 'Saving…' : `Apply to ${tickets.length}`}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Each ticket's label set after adding or removing the chosen labels, grouped by the resulting set. */
function labelGroups(tickets: Ticket[], mode: 'add' | 'remove', chosen: string[]) {
  const groups = new Map<string, { labelIds: string[]; ids: string[] }>();
  for (const t of tickets) {
    const current = labelIdsOf(t);
    const next =
      mode === 'add' ? [...new Set([...current, ...chosen])] : current.filter((id) => !chosen.includes(id));
    const key = [...next].sort().join(',');
    const g = groups.get(key) ?? { labelIds: next, ids: [] };
    g.ids.push(t.id);
    groups.set(key, g);
  }
  return groups;
}

/** A field that starts at "No change". */
function ChangeField({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  return (
    <Field label={label}>
      {(id) => (
        <Select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">No change</option>
          {children}
        </Select>
      )}
    </Field>
  );
}

/** How the labels change (keep, add, remove, replace) and which labels. */
function LabelChange({
  labels,
  mode,
  setMode,
  chosen,
  setChosen,
}: {
  labels: Label[];
  mode: LabelMode;
  setMode: (mode: LabelMode) => void;
  chosen: string[];
  setChosen: (update: (c: string[]) => string[]) => void;
}) {
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1 text-[12px] font-medium text-muted">Labels</legend>
      <Select
        aria-label="Label change"
        className="w-56"
        value={mode}
        onChange={(e) => setMode(e.target.value as LabelMode)}
      >
        <option value="keep">No change</option>
        <option value="add">Add the chosen labels</option>
        <option value="remove">Remove the chosen labels</option>
        <option value="replace">Replace with the chosen labels</option>
      </Select>
      {mode !== 'keep' &&
        (labels.length === 0 ? (
          <p className="text-[12px] text-faint">This project has no labels yet.</p>
        ) : (
          <div className="flex flex-wrap gap-x-4 gap-y-1.5">
            {labels.map((l) => (
              <label key={l.id} className="flex items-center gap-1.5">
                <input
                  type="checkbox"
                  checked={chosen.includes(l.id)}
                  onChange={(e) =>
                    setChosen((c) => (e.target.checked ? [...c, l.id] : c.filter((x) => x !== l.id)))
                  }
                />
                <ColorDot color={l.color} size={8} />
                {l.name}
              </label>
            ))}
          </div>
        ))}
    </fieldset>
  );
}
