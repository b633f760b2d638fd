/**
 * The import wizard (/projects/KEY/import, docs/import.md): choose a file and its format, read the dry
 * run (what would be created, the rows that cannot be read, where every status, type, priority,
 * person and label goes), change those choices, import with progress, and see the result.
 */
import { useState } from 'react';
import { Link } from 'wouter';
import { PRIORITIES, TICKET_TYPES } from '../../shared/enums';
import { IMPORT_FORMATS } from '../../shared/imports';
import { errorText } from '../api/client';
import { type ImportFormat, type ImportMapping, type ImportResult, useRunImport } from '../api/imports';
import type { Project } from '../api/types';
import { FormError, ProjectFrame, Section } from '../components/ProjectNav';
import { Button, Field, Input, Select } from '../components/ui';

const FORMAT_NAMES: Record<ImportFormat, string> = {
  'jira-csv': 'Jira (CSV export)',
  'github-json': 'GitHub issues (JSON)',
  'linear-csv': 'Linear (CSV export)',
  'trello-json': 'Trello board (JSON export)',
  csv: 'CSV with a header row',
};

type Step = 'file' | 'checking' | 'preview' | 'importing' | 'done';

export function ImportPage({ projectKey }: { projectKey: string }) {
  return (
    <ProjectFrame projectKey={projectKey} tab="board">
      {(project) => <ImportWizard project={project} />}
    </ProjectFrame>
  );
}

function Counts({ result }: { result: ImportResult }) {
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

function Problems({ result }: { result: ImportResult }) {
  if (result.problems.length === 0)
    return <p className="text-muted">No problems: every record can be read.</p>;
  return (
    <div className="max-h-64 overflow-auto rounded-md border border-line">
      <table aria-label="Problems" className="w-full text-left">
        <thead className="bg-surface-2 text-muted">
          <tr>
            <th className="px-2 py-1 font-medium">Row</th>
            <th className="px-2 py-1 font-medium">Problem</th>
          </tr>
        </thead>
        <tbody>
          {result.problems.map((p, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: problems have no id and never reorder
            <tr key={i} className="border-t border-line">
              <td className="px-2 py-1 tabular-nums">{p.row || '–'}</td>
              <td className="px-2 py-1">{p.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One kind of mapping: each source value with a control for where it goes. */
function MappingTable({
  title,
  rows,
}: {
  title: string;
  rows: { source: string; control: (label: string) => React.ReactNode; note?: string }[];
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

function ImportWizard({ project }: { project: Project }) {
  const [step, setStep] = useState<Step>('file');
  const [format, setFormat] = useState<ImportFormat>('jira-csv');
  const [file, setFile] = useState<File | null>(null);
  const [mapping, setMapping] = useState<ImportMapping>({});
  const [preview, setPreview] = useState<ImportResult | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const runImport = useRunImport(project.id);

  const send = async (dryRun: boolean) => {
    if (!file) return;
    setError(null);
    setProgress(0);
    setStep(dryRun ? 'checking' : 'importing');
    try {
      const res = await runImport.mutateAsync({
        file,
        fields: { format, mapping, dryRun },
        onProgress: setProgress,
      });
      if (dryRun) {
        setPreview(res);
        setStep('preview');
      } else {
        setResult(res);
        setStep('done');
      }
    } catch (e) {
      setError(errorText(e));
      setStep(dryRun ? 'file' : 'preview');
    }
  };

  const put = <K extends 'statuses' | 'types' | 'priorities' | 'people' | 'labels'>(
    kind: K,
    source: string,
    value: NonNullable<ImportMapping[K]>[string],
  ) => setMapping((m) => ({ ...m, [kind]: { ...(m[kind] ?? {}), [source]: value } }));

  const found = preview?.found;
  return (
    <div className="flex max-w-3xl flex-col gap-4 overflow-auto p-4">
      <h1 className="text-[16px] font-semibold">Import tickets into {project.name}</h1>
      <Section
        title="1. File"
        description="The export file of the other tracker. Nothing is written until you import after the check."
      >
        <div className="flex flex-wrap items-end gap-3">
          <Field label="Format">
            {(id) => (
              <Select
                id={id}
                className="w-64"
                value={format}
                disabled={step === 'checking' || step === 'importing'}
                onChange={(e) => {
                  setFormat(e.target.value as ImportFormat);
                  setPreview(null);
                  setStep('file');
                }}
              >
                {IMPORT_FORMATS.map((f) => (
                  <option key={f} value={f}>
                    {FORMAT_NAMES[f]}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Export file">
            {(id) => (
              <input
                id={id}
                type="file"
                accept={format.endsWith('json') ? '.json,application/json' : '.csv,text/csv'}
                disabled={step === 'checking' || step === 'importing'}
                onChange={(e) => {
                  setFile(e.target.files?.[0] ?? null);
                  setPreview(null);
                  setMapping({});
                  setStep('file');
                }}
              />
            )}
          </Field>
          <Button
            variant="primary"
            disabled={!file || step === 'checking' || step === 'importing'}
            onClick={() => send(true)}
          >
            {step === 'checking' ? 'Checking…' : 'Check file'}
          </Button>
        </div>
        {step === 'checking' && (
          <p role="status" className="mt-2 text-muted">
            {progress < 1 ? `Uploading… ${Math.round(progress * 100)}%` : 'Reading the file…'}
          </p>
        )}
        <div className="mt-2">
          <FormError error={error} />
        </div>
      </Section>

      {preview && found && step !== 'done' && (
        <>
          <Section
            title="2. Preview"
            description="What the import would create, and every row that cannot be read."
          >
            <div className="flex flex-col gap-3">
              <Counts result={preview} />
              <Problems result={preview} />
            </div>
          </Section>
          <Section
            title="3. Mapping"
            description="Where each value of the file goes. The defaults need no change; check again to see the counts with your choices."
          >
            <div className="flex flex-col gap-4">
              <MappingTable
                title="Statuses to columns"
                rows={found.statuses.map((s) => ({
                  source: s.source,
                  note: s.create ? 'new column' : undefined,
                  control: (label) => (
                    <Input
                      aria-label={label}
                      defaultValue={mapping.statuses?.[s.source] ?? s.column}
                      onBlur={(e) =>
                        e.target.value.trim() && put('statuses', s.source, e.target.value.trim())
                      }
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
                      onChange={(e) =>
                        put('types', t.source, e.target.value as (typeof TICKET_TYPES)[number])
                      }
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
                      onChange={(e) =>
                        put('priorities', p.source, e.target.value as (typeof PRIORITIES)[number])
                      }
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
                  note: p.username ? undefined : 'no user: the name is kept in the description',
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
              <div className="flex gap-2">
                <Button onClick={() => send(true)} disabled={step === 'importing'}>
                  Check again
                </Button>
                <Button variant="primary" onClick={() => send(false)} disabled={step === 'importing'}>
                  {step === 'importing'
                    ? 'Importing…'
                    : `Import ${preview.counts.tickets.toLocaleString()} tickets`}
                </Button>
              </div>
              {step === 'importing' && (
                <div role="status" className="flex flex-col gap-1">
                  <progress className="w-full" max={1} value={progress < 1 ? progress : undefined} />
                  <span className="text-muted">
                    {progress < 1
                      ? `Uploading… ${Math.round(progress * 100)}%`
                      : 'Importing… this can take a minute for large files.'}
                  </span>
                </div>
              )}
            </div>
          </Section>
        </>
      )}

      {step === 'done' && result && (
        <Section title="Imported" description="The import is finished.">
          <div className="flex flex-col gap-3">
            <Counts result={result} />
            <Problems result={result} />
            <div className="flex gap-2">
              <Link href={`/projects/${project.key}`} className="text-accent hover:underline">
                Open the board
              </Link>
              <button
                type="button"
                className="text-accent hover:underline"
                onClick={() => {
                  setStep('file');
                  setPreview(null);
                  setResult(null);
                  setFile(null);
                  setMapping({});
                }}
              >
                Import another file
              </button>
            </div>
          </div>
        </Section>
      )}
    </div>
  );
}
