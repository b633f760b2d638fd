import { LIMITS } from '../../shared/limits';
import type { Label, Member } from '../api/types';
import { ColorDot } from './ui';

/** The ticket form parts the New-ticket dialog and the template editor share. */

/** The story-point choices, as options of a select. */
export function PointOptions() {
  return LIMITS.storyPoints.map((n) => (
    <option key={n} value={String(n)}>
      {n}
    </option>
  ));
}

/** The project's members, as options of a select (by user id). */
export function MemberOptions({ members }: { members: Member[] | undefined }) {
  return members?.map((m) => (
    <option key={m.userId} value={m.userId}>
      {m.user.name ?? m.user.username}
    </option>
  ));
}

/** A checkbox per label of the project; nothing when the project has none. */
export function LabelCheckboxes({
  legend,
  labels,
  value,
  onChange,
}: {
  legend: string;
  labels: Label[] | undefined;
  value: string[];
  onChange: (ids: string[]) => void;
}) {
  if (!labels?.length) return null;
  return (
    <fieldset className="flex flex-wrap items-center gap-x-3 gap-y-1.5">
      <legend className="mb-1 text-[12px] font-medium text-muted">{legend}</legend>
      {labels.map((l) => (
        <label key={l.id} className="flex items-center gap-1.5 text-[13px]">
          <input
            type="checkbox"
            checked={value.includes(l.id)}
            onChange={(e) => onChange(e.target.checked ? [...value, l.id] : value.filter((x) => x !== l.id))}
          />
          <ColorDot color={l.color} /> {l.name}
        </label>
      ))}
    </fieldset>
  );
}
