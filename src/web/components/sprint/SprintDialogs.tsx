/**
 * The sprint dialogs of the backlog: create and edit, start, extend and complete. Every dialog shows
 * the API's own words when the server refuses, and stays open so that the input can be corrected.
 */
import { type FormEvent, type ReactNode, useState } from 'react';
import { errorText } from '../../api/client';
import type { IncompleteAction, SprintActions, SprintFields } from '../../api/sprints';
import type { CompleteResult, SprintFull, Ticket } from '../../api/types';
import { addDays, dayOf, shortDate, sumPoints } from '../../lib/dates';
import { FormError } from '../ProjectNav';
import { useToast } from '../toast';
import { Button, Dialog, Field, Input, Select, Textarea } from '../ui';

const today = () => dayOf(null);

/** Runs a dialog's submit: busy while it runs, the API's error in the dialog when it fails. */
function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

function Actions({
  onClose,
  busy,
  label,
  disabled,
}: {
  onClose: () => void;
  busy: boolean;
  label: string;
  disabled?: boolean;
}) {
  return (
    <div className="flex justify-end gap-2">
      <Button onClick={onClose}>Cancel</Button>
      <Button type="submit" variant="primary" disabled={busy || disabled}>
        {busy ? 'Saving…' : label}
      </Button>
    </div>
  );
}

/** Create a sprint, or edit one: name, goal, dates and story-point budget. */
export function SprintFormDialog({
  sprint,
  actions,
  onClose,
}: {
  sprint?: SprintFull;
  actions: SprintActions;
  onClose: () => void;
}) {
  const toast = useToast();
  const [name, setName] = useState(sprint?.name ?? '');
  const [goal, setGoal] = useState(sprint?.goal ?? '');
  const [start, setStart] = useState(sprint?.startDate ? dayOf(sprint.startDate) : '');
  const [end, setEnd] = useState(sprint?.endDate ? dayOf(sprint.endDate) : '');
  const [budget, setBudget] = useState(sprint?.budget != null ? String(sprint.budget) : '');
  const { busy, error, run } = useSubmit();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const budgetValue = budget.trim() === '' ? null : Number(budget);
    const ok = await run(async () => {
      if (sprint) {
        const body: SprintFields = {
          name: name.trim(),
          goal: goal.trim() || null,
          startDate: start || null,
          endDate: end || null,
          budget: budgetValue,
        };
        await actions.update(sprint.id, body);
        toast.show(`${name.trim()} saved`, 'success');
      } else {
        const created = await actions.create({
          ...(name.trim() ? { name: name.trim() } : {}),
          ...(goal.trim() ? { goal: goal.trim() } : {}),
          ...(start ? { startDate: start } : {}),
          ...(end ? { endDate: end } : {}),
          ...(budgetValue != null ? { budget: budgetValue } : {}),
        });
        toast.show(`${created.name} created`, 'success');
      }
    });
    if (ok) onClose();
  };
  return (
    <Dialog title={sprint ? `Edit ${sprint.name}` : 'Create sprint'} onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <Field label="Sprint name" hint={sprint ? undefined : 'Leave empty for the next “Sprint N”.'}>
          {(id) => (
            <Input
              id={id}
              value={name}
              maxLength={100}
              placeholder={sprint ? undefined : 'Sprint N'}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Goal">
          {(id) => (
            <Textarea
              id={id}
              rows={2}
              maxLength={1000}
              value={goal}
              placeholder="What this sprint should achieve"
              onChange={(e) => setGoal(e.target.value)}
            />
          )}
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Start date">
            {(id) => <Input id={id} type="date" value={start} onChange={(e) => setStart(e.target.value)} />}
          </Field>
          <Field label="End date">
            {(id) => (
              <Input
                id={id}
                type="date"
                value={end}
                min={start || undefined}
                onChange={(e) => setEnd(e.target.value)}
              />
            )}
          </Field>
        </div>
        <Field label="Budget (story points)" hint="The points the team expects to finish; empty for none.">
          {(id) => (
            <Input
              id={id}
              type="number"
              inputMode="numeric"
              min={0}
              step="any"
              className="w-40"
              value={budget}
              onChange={(e) => setBudget(e.target.value)}
            />
          )}
        </Field>
        <FormError error={error} />
        <Actions onClose={onClose} busy={busy} label={sprint ? 'Save sprint' : 'Create sprint'} />
      </form>
    </Dialog>
  );
}

function Stat({
  label,
  tickets,
  points,
  tone,
  testId,
}: {
  label: string;
  tickets: number;
  points: number;
  tone: string;
  testId: string;
}) {
  return (
    <div className="flex-1 rounded-md border border-line bg-subtle px-3 py-2" data-testid={testId}>
      <div className={`text-[12px] font-medium ${tone}`}>{label}</div>
      <div className="mt-0.5 text-[18px] font-semibold text-fg">
        {tickets} <span className="text-[13px] font-normal text-muted">ticket{tickets === 1 ? '' : 's'}</span>
      </div>
      <div className="text-[12px] text-muted">
        {points} story point{points === 1 ? '' : 's'}
      </div>
    </div>
  );
}

/** Starts a planning sprint; the dates are prefilled from its plan, else today plus the default length. */
export function StartSprintDialog({
  sprint,
  tickets,
  weeks,
  actions,
  onClose,
}: {
  sprint: SprintFull;
  tickets: Ticket[];
  weeks: number;
  actions: SprintActions;
  onClose: () => void;
}) {
  const toast = useToast();
  const planned = !!(sprint.startDate && sprint.endDate);
  const [start, setStart] = useState(planned ? dayOf(sprint.startDate) : today());
  const [end, setEnd] = useState(planned ? dayOf(sprint.endDate) : addDays(today(), weeks * 7));
  const [endTouched, setEndTouched] = useState(planned);
  const { busy, error, run } = useSubmit();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await run(async () => {
      await actions.start(sprint.id, start, end);
      toast.show(`${sprint.name} started`, 'success');
    });
    if (ok) onClose();
  };
  return (
    <Dialog title={`Start ${sprint.name}`} onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <p className="text-muted">
          {tickets.length} ticket{tickets.length === 1 ? '' : 's'} · {sumPoints(tickets)} story points
          {sprint.budget != null ? ` of a ${sprint.budget}-point budget` : ''}.
        </p>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Start date">
            {(id) => (
              <Input
                id={id}
                type="date"
                required
                value={start}
                onChange={(e) => {
                  setStart(e.target.value);
                  if (!endTouched && e.target.value) setEnd(addDays(e.target.value, weeks * 7));
                }}
              />
            )}
          </Field>
          <Field
            label="End date"
            hint={`Default length: ${weeks} week${weeks === 1 ? '' : 's'} (sprint settings).`}
          >
            {(id) => (
              <Input
                id={id}
                type="date"
                required
                min={start}
                value={end}
                onChange={(e) => {
                  setEnd(e.target.value);
                  setEndTouched(true);
                }}
              />
            )}
          </Field>
        </div>
        <FormError error={error} />
        <Actions onClose={onClose} busy={busy} label="Start sprint" disabled={!start || !end} />
      </form>
    </Dialog>
  );
}

/** Moves the end date of the active sprint. */
export function ExtendSprintDialog({
  sprint,
  actions,
  onClose,
}: {
  sprint: SprintFull;
  actions: SprintActions;
  onClose: () => void;
}) {
  const toast = useToast();
  const currentEnd = sprint.endDate ? dayOf(sprint.endDate) : today();
  const [end, setEnd] = useState(addDays(currentEnd, 7));
  const { busy, error, run } = useSubmit();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await run(async () => {
      await actions.extend(sprint.id, end);
      toast.show(`${sprint.name} now ends ${shortDate(end)}`, 'success');
    });
    if (ok) onClose();
  };
  return (
    <Dialog title={`Extend ${sprint.name}`} onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <p className="text-muted">
          Started {shortDate(sprint.startDate)}, ends {shortDate(sprint.endDate)}.
        </p>
        <Field label="New end date">
          {(id) => (
            <Input
              id={id}
              type="date"
              required
              className="w-48"
              min={sprint.startDate ? dayOf(sprint.startDate) : undefined}
              value={end}
              onChange={(e) => setEnd(e.target.value)}
            />
          )}
        </Field>
        <FormError error={error} />
        <Actions onClose={onClose} busy={busy} label="Extend sprint" disabled={!end} />
      </form>
    </Dialog>
  );
}

const NEW_SPRINT = '__new';

function Choice({
  value,
  current,
  onChange,
  title,
  children,
}: {
  value: IncompleteAction;
  current: IncompleteAction;
  onChange: (v: IncompleteAction) => void;
  title: string;
  children?: ReactNode;
}) {
  return (
    <div
      className={`flex flex-col gap-1 rounded-md border px-3 py-2 ${current === value ? 'border-accent bg-accent-soft' : 'border-line'}`}
    >
      <label className="flex cursor-pointer items-center gap-2">
        <input
          type="radio"
          name="incomplete-action"
          value={value}
          checked={current === value}
          onChange={() => onChange(value)}
        />
        <span className="font-medium text-fg">{title}</span>
      </label>
      {children && <div className="flex flex-col gap-1 pl-5">{children}</div>}
    </div>
  );
}

/**
 * Completes the active sprint: the complete and incomplete work (by the done columns of the sprint
 * settings), and the choice of what happens to the incomplete tickets.
 */
export function CompleteSprintDialog({
  sprint,
  tickets,
  isDone,
  nextCandidates,
  autoCarryOver,
  actions,
  onClose,
  onCompleted,
}: {
  sprint: SprintFull;
  tickets: Ticket[];
  isDone: (t: Ticket) => boolean;
  nextCandidates: SprintFull[];
  autoCarryOver: boolean;
  actions: SprintActions;
  onClose: () => void;
  onCompleted?: (result: CompleteResult) => void;
}) {
  const toast = useToast();
  const done = tickets.filter(isDone);
  const open = tickets.filter((t) => !isDone(t));
  const [action, setAction] = useState<IncompleteAction>(
    autoCarryOver ? 'moveToNextSprint' : 'moveToBacklog',
  );
  const [next, setNext] = useState(nextCandidates[0]?.id ?? NEW_SPRINT);
  const { busy, error, run } = useSubmit();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await run(async () => {
      const chosen: IncompleteAction = open.length === 0 ? 'moveToBacklog' : action;
      let nextId: string | undefined;
      let nextName = '';
      if (chosen === 'moveToNextSprint') {
        if (next === NEW_SPRINT) {
          const created = await actions.create({});
          nextId = created.id;
          nextName = created.name;
        } else {
          nextId = next;
          nextName = nextCandidates.find((s) => s.id === next)?.name ?? 'the next sprint';
        }
      }
      const result = await actions.complete(sprint.id, chosen, nextId);
      const moved =
        result.incompleteTicketCount === 0
          ? ''
          : chosen === 'moveToNextSprint'
            ? `; ${result.incompleteTicketCount} moved to ${nextName}`
            : chosen === 'moveToBacklog'
              ? `; ${result.incompleteTicketCount} moved to the backlog`
              : `; ${result.incompleteTicketCount} kept in the sprint`;
      toast.show(
        `${sprint.name} completed: ${result.completedTicketCount} done (${result.completedStoryPoints} pts)${moved}`,
        'success',
      );
      onCompleted?.(result);
    });
    if (ok) onClose();
  };
  return (
    <Dialog title={`Complete ${sprint.name}`} onClose={onClose}>
      <form onSubmit={submit} className="flex flex-col gap-3">
        <div className="flex gap-3">
          <Stat
            label="Complete"
            tone="text-success"
            tickets={done.length}
            points={sumPoints(done)}
            testId="complete-stat"
          />
          <Stat
            label="Incomplete"
            tone="text-warn"
            tickets={open.length}
            points={sumPoints(open)}
            testId="incomplete-stat"
          />
        </div>
        {open.length === 0 ? (
          <p className="text-muted">Every ticket of the sprint is complete.</p>
        ) : (
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 text-[12px] font-medium text-muted">
              What happens to the {open.length} incomplete ticket{open.length === 1 ? '' : 's'}?
            </legend>
            <Choice
              value="moveToNextSprint"
              current={action}
              onChange={setAction}
              title="Move to the next sprint"
            >
              <span className="text-[12px] text-muted">They are marked as carried over.</span>
              {action === 'moveToNextSprint' && (
                <Select
                  aria-label="Next sprint"
                  className="max-w-xs"
                  value={next}
                  onChange={(e) => setNext(e.target.value)}
                >
                  {nextCandidates.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.name}
                    </option>
                  ))}
                  <option value={NEW_SPRINT}>A new sprint</option>
                </Select>
              )}
            </Choice>
            <Choice value="moveToBacklog" current={action} onChange={setAction} title="Move to the backlog" />
            <Choice value="keepInSprint" current={action} onChange={setAction} title="Keep in this sprint">
              <span className="text-[12px] text-muted">
                They stay with the completed sprint and leave the backlog.
              </span>
            </Choice>
          </fieldset>
        )}
        <FormError error={error} />
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? 'Completing…' : 'Complete sprint'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
