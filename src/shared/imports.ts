import { z } from 'zod';
import { PRIORITIES, TICKET_TYPES } from './enums.js';

/**
 * Imports from other trackers and the ticket export (docs/import.md): the formats, the mapping a
 * person may give, and the answer of an import or a dry run. Used by the route, the CLI and the
 * web wizard alike.
 */
export const IMPORT_FORMATS = ['jira-csv', 'github-json', 'linear-csv', 'trello-json', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Each format's name for people (the wizard's choices, and the refusal of a file in another format). */
export const IMPORT_FORMAT_NAMES: Record<ImportFormat, string> = {
  'jira-csv': 'Jira (CSV export)',
  'github-json': 'GitHub issues (JSON)',
  'linear-csv': 'Linear (CSV export)',
  'trello-json': 'Trello board (JSON export)',
  csv: 'CSV with a header row',
};

/** What an import does with archived records (Trello's archived cards and the cards of archived lists, Linear's archived issues). */
export const ARCHIVED_CHOICES = ['done', 'skip'] as const;
export type ArchivedChoice = (typeof ARCHIVED_CHOICES)[number];

/** The columns of the CSV export, in order (the generic CSV importer reads them back by name). */
export const EXPORT_COLUMNS = [
  'key',
  'title',
  'type',
  'priority',
  'status',
  'assignee',
  'reporter',
  'labels',
  'storyPoints',
  'sprint',
  'startDate',
  'dueDate',
  'created',
  'updated',
  'parent',
  'description',
  'estimate',
  'environment',
  'affectedVersion',
  'fixVersion',
] as const;

/** The fields of a ticket a generic CSV column can fill: the export's columns, a source id and a link. */
export const CSV_FIELDS = ['id', 'url', ...EXPORT_COLUMNS] as const;
export type CsvField = (typeof CSV_FIELDS)[number];

const name = z.string().min(1).max(200);
const nameMap = <T extends z.ZodType>(value: T) =>
  z.record(name, value).refine((r) => Object.keys(r).length <= 5000, 'At most 5,000 entries');

/**
 * The mapping step. Every part is optional: without it a source status goes to the column of the
 * same name (created when missing), types and priorities by their usual meaning, people to the
 * user with that username or e-mail, labels to labels of the same name (created when missing).
 */
export const importMapping = z.strictObject({
  /** Source status -> column name; a column that does not exist is created when createColumns allows. */
  statuses: nameMap(z.string().trim().min(1).max(50)).optional(),
  /** false: statuses without a column go to the first column instead of new columns. */
  createColumns: z.boolean().optional(),
  /**
   * Archived records: `done` (the default) imports them into the done column, whatever their status
   * or list (an archived list gets no column); `skip` leaves them out.
   */
  archived: z.enum(ARCHIVED_CHOICES).optional(),
  types: nameMap(z.enum(TICKET_TYPES)).optional(),
  priorities: nameMap(z.enum(PRIORITIES)).optional(),
  /** Source person (name, login or e-mail) -> Docket username or e-mail; null: nobody (the name stays in the description). */
  people: nameMap(z.string().min(1).max(320).nullable()).optional(),
  /** Source label -> Docket label name; null: drop the label. */
  labels: nameMap(z.string().trim().min(1).max(50).nullable()).optional(),
  /** Jira and Linear: the site's address (https://acme.atlassian.net), for links back to each issue. */
  baseUrl: z.url().max(500).optional(),
  /** Generic CSV: header -> field, for headers that do not already name a field. */
  columns: nameMap(z.enum(CSV_FIELDS)).optional(),
});
export type ImportMapping = z.infer<typeof importMapping>;

/** The multipart fields of POST /api/projects/:projectId/imports besides `file`. */
export const importFields = z.strictObject({
  format: z.enum(IMPORT_FORMATS, { error: `Must be one of ${IMPORT_FORMATS.join(', ')}` }),
  mapping: z
    .string()
    .max(1_000_000)
    .optional()
    .transform((v, c) => {
      if (v === undefined || v.trim() === '') return undefined;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        c.addIssue({ code: 'custom', message: 'Must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(importMapping.optional()),
  dryRun: z
    .enum(['true', 'false'], { error: 'Must be true or false' })
    .optional()
    .transform((v) => v === 'true'),
});

export const importProblem = z.object({
  /** The row (CSV: the line's record number, 1 = the first after the header; JSON: the item's 1-based place). */
  row: z.number().int(),
  /** The line of the file where the record starts, when known. */
  line: z.number().int().optional(),
  message: z.string(),
});
export type ImportProblem = z.infer<typeof importProblem>;

/** Why a file is refused: a place in it (1-based line and column, in characters) when there is one. */
export const importFileProblem = z.object({
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  /** The record (as in importProblem.row), when the problem is one record's. */
  row: z.number().int().optional(),
  message: z.string(),
});
export type ImportFileProblem = z.infer<typeof importFileProblem>;

/**
 * The 400 of an import (dry run or not) of a file that is malformed or not in the chosen format:
 * nothing was written. `looksLike` names what the file seems to be when it is not the chosen format
 * (one of IMPORT_FORMATS, or `json`, `csv`, `text`, `empty`, `binary`, or a file type such as `xlsx`).
 */
export const importRefusedOut = z.object({
  error: z.string(),
  problems: z.array(importFileProblem),
  looksLike: z.string().optional(),
});
export type ImportRefused = z.infer<typeof importRefusedOut>;

/** What the source holds and where it goes by the mapping and its defaults (for the wizard's mapping step). */
export const importFound = z.object({
  statuses: z.array(z.object({ source: z.string(), column: z.string(), create: z.boolean() })),
  types: z.array(z.object({ source: z.string(), type: z.enum(TICKET_TYPES) })),
  priorities: z.array(z.object({ source: z.string(), priority: z.enum(PRIORITIES) })),
  people: z.array(z.object({ source: z.string(), username: z.string().nullable() })),
  labels: z.array(z.object({ source: z.string(), label: z.string().nullable(), create: z.boolean() })),
  /** Archived records in the file (with their checklist items), the archived lists they were in, and what the import does with them. */
  archived: z.object({
    records: z.number().int(),
    lists: z.array(z.string()),
    choice: z.enum(ARCHIVED_CHOICES),
  }),
});
export type ImportFound = z.infer<typeof importFound>;

export const importResult = z.object({
  dryRun: z.boolean(),
  /** What was (or, in a dry run, would be) created. */
  counts: z.object({
    tickets: z.number().int(),
    comments: z.number().int(),
    labels: z.number().int(),
    columns: z.number().int(),
    links: z.number().int(),
  }),
  /** Records imported before (their source id is remembered): left as they are. */
  skipped: z.number().int(),
  /** Every record that could not be read, and what was left out of one that could. At most 1,000. */
  problems: z.array(importProblem),
  found: importFound,
});
export type ImportResult = z.infer<typeof importResult>;

/** The most problems an answer lists; the count of the rest is the last problem. */
export const MAX_IMPORT_PROBLEMS = 1000;

/** One ticket of the export (`tickets.json`; `tickets.csv` has the same fields as columns, labels joined). */
export const exportRowOut = z.object({
  key: z.string(),
  title: z.string(),
  type: z.enum(TICKET_TYPES),
  priority: z.enum(PRIORITIES),
  /** The column's name. */
  status: z.string(),
  /** Usernames. */
  assignee: z.string().nullable(),
  reporter: z.string().nullable(),
  labels: z.array(z.string()),
  storyPoints: z.number().nullable(),
  sprint: z.string().nullable(),
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  created: z.string(),
  updated: z.string(),
  /** The parent's key. */
  parent: z.string().nullable(),
  description: z.string().nullable(),
  estimate: z.string().nullable(),
  environment: z.string().nullable(),
  affectedVersion: z.string().nullable(),
  fixVersion: z.string().nullable(),
});
export type ExportRow = z.infer<typeof exportRowOut>;
