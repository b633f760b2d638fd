/**
 * The import wizard (/projects/KEY/import, docs/import.md): choose a file and its format, read the dry
 * run (what would be created, the rows that cannot be read, where every status, type, priority,
 * person and label goes, what happens to archived cards), change those choices, import with
 * progress, and see the result. A file the import refuses (malformed, or not the chosen format)
 * shows why, line by line; nothing of it was written.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { IMPORT_FORMAT_NAMES, IMPORT_FORMATS } from '../../shared/imports';
import { errorText } from '../api/client';
import {
  type ImportFormat,
  type ImportMapping,
  type ImportRefused,
  type ImportResult,
  refusalOf,
  runImport,
} from '../api/imports';
import { qk } from '../api/keys';
import type { Project } from '../api/types';
import { MappingChoices } from '../components/import/ImportMapping';
import { Counts, Problems, RefusedFile } from '../components/import/ImportReport';
import { FormError, ProjectFrame, Section } from '../components/ProjectNav';
import { Button, Field, Select } from '../components/ui';

type Step = 'file' | 'checking' | 'preview' | 'importing' | 'done';

export function ImportPage({ projectKey }: { projectKey: string }) {
  return (
    <ProjectFrame projectKey={projectKey} tab="board">
      {(project) => <ImportWizard project={project} />}
    </ProjectFrame>
  );
}

/** The wizard's state and its two requests: check (a dry run) and import. */
function useImportWizard(project: Project) {
  const [step, setStep] = useState<Step>('file');
  const [format, setFormat] = useState<ImportFormat>('jira-csv');
  const [file, setFile] = useState<File | null>(null);
  const [mapping, setMapping] = useState<ImportMapping>({});
  const [preview, setPreview] = useState<ImportResult | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [refused, setRefused] = useState<ImportRefused | null>(null);
  const qc = useQueryClient();

  const send = async (dryRun: boolean) => {
    if (!file) return;
    setError(null);
    setRefused(null);
    setProgress(0);
    setStep(dryRun ? 'checking' : 'importing');
    try {
      const res = await runImport(project.id, file, { format, mapping, dryRun }, setProgress);
      if (dryRun) {
        setPreview(res);
        setStep('preview');
        return;
      }
      setResult(res);
      setStep('done');
      // The project's event stream says so too; this page need not wait for it.
      for (const key of [
        qk.tickets(project.id),
        qk.columns(project.id),
        qk.labels(project.id),
        qk.sprints(project.id),
      ])
        qc.invalidateQueries({ queryKey: key });
    } catch (e) {
      const r = refusalOf(e);
      if (r) {
        setRefused(r);
        setPreview(null);
      } else setError(errorText(e));
      setStep(dryRun || r ? 'file' : 'preview');
    }
  };
  /** A new file or format: the check and the mapping start over. */
  const choose = (next: { format?: ImportFormat; file?: File | null }) => {
    if (next.format) setFormat(next.format);
    if (next.file !== undefined) setFile(next.file);
    setPreview(null);
    setRefused(null);
    setMapping({});
    setStep('file');
  };
  const restart = () => {
    choose({ file: null });
    setResult(null);
  };
  const busy = step === 'checking' || step === 'importing';
  return {
    step,
    format,
    file,
    mapping,
    setMapping,
    preview,
    result,
    progress,
    error,
    refused,
    busy,
    send,
    choose,
    restart,
  };
}

type Wizard = ReturnType<typeof useImportWizard>;

function FileStep({ w }: { w: Wizard }) {
  return (
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
              value={w.format}
              disabled={w.busy}
              onChange={(e) => w.choose({ format: e.target.value as ImportFormat })}
            >
              {IMPORT_FORMATS.map((f) => (
                <option key={f} value={f}>
                  {IMPORT_FORMAT_NAMES[f]}
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
              accept={w.format.endsWith('json') ? '.json,application/json' : '.csv,text/csv'}
              disabled={w.busy}
              onChange={(e) => w.choose({ file: e.target.files?.[0] ?? null })}
            />
          )}
        </Field>
        <Button variant="primary" disabled={!w.file || w.busy} onClick={() => w.send(true)}>
          {w.step === 'checking' ? 'Checking…' : 'Check file'}
        </Button>
      </div>
      {w.step === 'checking' && (
        <p role="status" className="mt-2 text-muted">
          {w.progress < 1 ? `Uploading… ${Math.round(w.progress * 100)}%` : 'Reading the file…'}
        </p>
      )}
      <div className="mt-2 flex flex-col gap-2">
        <FormError error={w.error} />
        {w.refused && <RefusedFile refused={w.refused} />}
      </div>
    </Section>
  );
}

function MappingStep({ w, preview }: { w: Wizard; preview: ImportResult }) {
  return (
    <Section
      title="3. Mapping"
      description="Where each value of the file goes. The defaults need no change; check again to see the counts with your choices."
    >
      <div className="flex flex-col gap-4">
        <MappingChoices found={preview.found} mapping={w.mapping} setMapping={w.setMapping} />
        <div className="flex gap-2">
          <Button onClick={() => w.send(true)} disabled={w.step === 'importing'}>
            Check again
          </Button>
          <Button variant="primary" onClick={() => w.send(false)} disabled={w.step === 'importing'}>
            {w.step === 'importing'
              ? 'Importing…'
              : `Import ${preview.counts.tickets.toLocaleString()} tickets`}
          </Button>
        </div>
        {w.step === 'importing' && (
          <div role="status" className="flex flex-col gap-1">
            <progress className="w-full" max={1} value={w.progress < 1 ? w.progress : undefined} />
            <span className="text-muted">
              {w.progress < 1
                ? `Uploading… ${Math.round(w.progress * 100)}%`
                : 'Importing… this can take a minute for large files.'}
            </span>
          </div>
        )}
      </div>
    </Section>
  );
}

function DoneStep({ w, result, project }: { w: Wizard; result: ImportResult; project: Project }) {
  return (
    <Section title="Imported" description="The import is finished.">
      <div className="flex flex-col gap-3">
        <Counts result={result} />
        <Problems result={result} />
        <div className="flex gap-2">
          <Link href={`/projects/${project.key}`} className="text-accent hover:underline">
            Open the board
          </Link>
          <button type="button" className="text-accent hover:underline" onClick={w.restart}>
            Import another file
          </button>
        </div>
      </div>
    </Section>
  );
}

function ImportWizard({ project }: { project: Project }) {
  const w = useImportWizard(project);
  const { preview, result } = w;
  return (
    <div className="flex max-w-3xl flex-col gap-4 overflow-auto p-4">
      <h1 className="text-[16px] font-semibold">Import tickets into {project.name}</h1>
      <FileStep w={w} />
      {preview && w.step !== 'done' && (
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
          <MappingStep w={w} preview={preview} />
        </>
      )}
      {w.step === 'done' && result && <DoneStep w={w} result={result} project={project} />}
    </div>
  );
}
