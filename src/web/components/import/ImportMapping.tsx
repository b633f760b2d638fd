/**
 * The import wizard's mapping step (docs/import.md "The mapping"): where each status, type,
 * priority, person and label of the file goes, whether statuses get new columns, and what happens
 * to archived cards. Changes are kept in the mapping sent with the next check or the import.
 */
import type { Dispatch, ReactNode, SetStateAction } from 'react';
import { PRIORITIES, TICKET_TYPES } from '../../../shared/enums';
import type { ImportMapping, ImportResult } from '../../api/imports';
import { Input, Select } from '../ui';

type Found = ImportResult['found'];
type Kind = 'statuses' | 'types' | 'priorities' | 'people' | 'labels';

/** One kind of mapping: each source value with a control for where it goes. */
function MappingTable({
  title,
  rows,
}: {
  title: string;
  rows: { source: string; control: (label: string) => ReactNode; note?: string }[];
}) {
  if (rows.length === 0) return null;
  return (
    <fieldset className="flex flex-col gap-1">
      <legend className="mb-1 text-[12px] font-medium text-muted">{title}</legend>
      {rows.map((r) => (
        <div
          key={r.source}
          className="grid grid-cols-[minmax(8rem,14rem)_minmax(10rem,16rem)_auto] items-center gap-2"
        >
          <span className="truncate" title={r.source}>
            {r.source}
          </span>
          {r.control(`${title}: ${r.source}`)}
          <span className="text-[12px] text-faint">{r.note}</span>
        </div>
      ))}
    </fieldset>
  );
}

/** Archived cards (and the cards of archived lists): imported as done, or left out. */
function ArchivedChoice({
  archived,
  mapping,
  setMapping,
}: {
  archived: Found['archived'];
  mapping: ImportMapping;
  setMapping: Dispatch<SetStateAction<ImportMapping>>;
}) {
  if (archived.records === 0) return null;
  const choice = mapping.archived ?? archived.choice;
  const n = archived.records.toLocaleString();
  const options: { value: 'done' | 'skip'; label: string }[] = [
    { value: 'done', label: `Import them into the done column (${n})` },
    { value: 'skip', label: 'Leave them out' },
  ];
  return (
    <fieldset className="flex flex-col gap-1">
      <legend className="mb-1 text-[12px] font-medium text-muted">Archived cards</legend>
      <p className="text-muted">
        {n} archived {archived.records === 1 ? 'record' : 'records'} in the file
        {archived.lists.length > 0 &&
          (archived.lists.length === 1
            ? `, counting the cards of the archived list ${archived.lists[0]} (which gets no column)`
            : `, counting the cards of the archived lists ${archived.lists.join(', ')} (which get no column)`)}
        .
      </p>
      {options.map((o) => (
        <label key={o.value} className="flex items-center gap-2">
          <input
            type="radio"
            name="archived"
            value={o.value}
            checked={choice === o.value}
            onChange={() => setMapping((m) => ({ ...m, archived: o.value }))}
          />
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}

export function MappingChoices({
  found,
  mapping,
  setMapping,
}: {
  found: Found;
  mapping: ImportMapping;
  setMapping: Dispatch<SetStateAction<ImportMapping>>;
}) {
  const put = <K extends Kind>(kind: K, source: string, value: NonNullable<ImportMapping[K]>[string]) =>
    setMapping((m) => ({ ...m, [kind]: { ...(m[kind] ?? {}), [source]: value } }));
  return (
    <>
      <ArchivedChoice archived={found.archived} mapping={mapping} setMapping={setMapping} />
      <MappingTable
        title="Statuses to columns"
        rows={found.statuses.map((s) => ({
          source: s.source,
          note: s.create ? 'new column' : undefined,
          control: (label) => (
            <Input
              aria-label={label}
              defaultValue={mapping.statuses?.[s.source] ?? s.column}
              onBlur={(e) => e.target.value.trim() && put('statuses', s.source, e.target.value.trim())}
            />
          ),
        }))}
      />
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          checked={mapping.createColumns !== false}
          onChange={(e) => setMapping((m) => ({ ...m, createColumns: e.target.checked }))}
        />
        Create a column for a status that has none (otherwise: the first column)
      </label>
      <MappingTable
        title="Types"
        rows={found.types.map((t) => ({
          source: t.source,
          control: (label) => (
            <Select
              aria-label={label}
              value={mapping.types?.[t.source] ?? t.type}
              onChange={(e) => put('types', t.source, e.target.value as (typeof TICKET_TYPES)[number])}
            >
              {TICKET_TYPES.map((x) => (
                <option key={x}>{x}</option>
              ))}
            </Select>
          ),
        }))}
      />
      <MappingTable
        title="Priorities"
        rows={found.priorities.map((p) => ({
          source: p.source,
          control: (label) => (
            <Select
              aria-label={label}
              value={mapping.priorities?.[p.source] ?? p.priority}
              onChange={(e) => put('priorities', p.source, e.target.value as (typeof PRIORITIES)[number])}
            >
              {PRIORITIES.map((x) => (
                <option key={x}>{x}</option>
              ))}
            </Select>
          ),
        }))}
      />
      <MappingTable
        title="People"
        rows={found.people.map((p) => ({
          source: p.source,
          note: p.username ? undefined : 'no user: the name is kept',
          control: (label) => (
            <Input
              aria-label={label}
              placeholder="username or e-mail"
              defaultValue={mapping.people?.[p.source] ?? p.username ?? ''}
              onBlur={(e) => put('people', p.source, e.target.value.trim() || null)}
            />
          ),
        }))}
      />
      <MappingTable
        title="Labels"
        rows={found.labels.map((l) => ({
          source: l.source,
          note: l.create ? 'new label' : undefined,
          control: (label) => (
            <Input
              aria-label={label}
              placeholder="(left out)"
              defaultValue={mapping.labels?.[l.source] ?? l.label ?? ''}
              onBlur={(e) => put('labels', l.source, e.target.value.trim() || null)}
            />
          ),
        }))}
      />
    </>
  );
}
