/**
 * What an import check or run reports (docs/import.md): the counts, the records that cannot be
 * read, and a refused file's problems with their lines and columns.
 */
import type { ImportRefused, ImportResult } from '../../api/imports';

export function Counts({ result }: { result: ImportResult }) {
  const c = result.counts;
  const rows: [string, number][] = [
    ['Tickets', c.tickets],
    ['Comments', c.comments],
    ['New labels', c.labels],
    ['New columns', c.columns],
    ['Links', c.links],
    ['Imported before (skipped)', result.skipped],
  ];
  return (
    <dl aria-label="Counts" className="grid grid-cols-[max-content_auto] gap-x-6 gap-y-1">
      {rows.map(([name, n]) => (
        <div key={name} className="contents">
          <dt className="text-muted">{name}</dt>
          <dd className="font-medium tabular-nums">{n.toLocaleString()}</dd>
        </div>
      ))}
    </dl>
  );
}

type Row = { place: string; message: string };

function ProblemTable({ label, head, rows }: { label: string; head: string; rows: Row[] }) {
  return (
    <div className="max-h-64 overflow-auto rounded-md border border-line">
      <table aria-label={label} className="w-full text-left">
        <thead className="bg-surface-2 text-muted">
          <tr>
            <th className="px-2 py-1 font-medium">{head}</th>
            <th className="px-2 py-1 font-medium">Problem</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: problems have no id and never reorder
            <tr key={i} className="border-t border-line">
              <td className="whitespace-nowrap px-2 py-1 align-top tabular-nums">{p.place}</td>
              <td className="px-2 py-1">{p.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The records a check or an import left out, and why. */
export function Problems({ result }: { result: ImportResult }) {
  if (result.problems.length === 0)
    return <p className="text-muted">No problems: every record can be read.</p>;
  return (
    <ProblemTable
      label="Problems"
      head="Row"
      rows={result.problems.map((p) => ({
        place: p.row ? `${p.row}${p.line ? ` (line ${p.line})` : ''}` : '–',
        message: p.message,
      }))}
    />
  );
}

/** A file the import refused as a whole: nothing was written; each problem with its place. */
export function RefusedFile({ refused }: { refused: ImportRefused }) {
  return (
    <div role="alert" className="flex flex-col gap-2">
      <p className="rounded-md bg-danger-soft px-3 py-2 text-danger">{refused.error}</p>
      <ProblemTable
        label="Why the file was refused"
        head="Where"
        rows={refused.problems.map((p) => ({
          place: p.line ? `line ${p.line}${p.column ? `, column ${p.column}` : ''}` : '–',
          message: p.message,
        }))}
      />
    </div>
  );
}
