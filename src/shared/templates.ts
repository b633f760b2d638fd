/** Ticket templates of a project (issue 23, docs/decisions/050-ticket-templates.md). */
import { z } from 'zod';
import { idParam, text } from './common.js';
import { LIMITS } from './limits.js';
import { labelOut } from './projects.js';
import { storyPoints, ticketPriority, ticketType } from './tickets.js';

export const templateParams = z.object({ projectId: idParam, templateId: idParam });

const about = z
  .string()
  .trim()
  .max(LIMITS.templateAboutMax, `Must be at most ${LIMITS.templateAboutMax} characters`);
/** A title start such as "Bug: ": kept as typed (its trailing space matters), not blank. */
const titlePrefix = z
  .string()
  .max(LIMITS.ticketTitleMax, `Must be at most ${LIMITS.ticketTitleMax} characters`)
  .refine((v) => v.trim().length > 0, 'Must not be blank');
const body = z
  .string()
  .max(LIMITS.ticketDescriptionMax, `Must be at most ${LIMITS.ticketDescriptionMax} characters`);
const labelIds = z.array(idParam).max(LIMITS.templateLabelsMax, `At most ${LIMITS.templateLabelsMax} labels`);

/** The ticket fields a template presets; null (or left out) presets nothing. */
const presetFields = {
  about: about.nullable().optional(),
  type: ticketType.nullable().optional(),
  title: titlePrefix.nullable().optional(),
  description: body.nullable().optional(),
  priority: ticketPriority.nullable().optional(),
  labelIds: labelIds.optional(),
  storyPoints: storyPoints.nullable().optional(),
  assigneeId: idParam.nullable().optional(),
  /** The project's default: preselected in the New-ticket dialog (one per project). */
  isDefault: z.boolean().optional(),
};

export const createTemplateBody = z.object({
  name: text(LIMITS.templateNameMax),
  ...presetFields,
  /** 0-based place in the list; the end when left out. */
  position: z.number().int('Must be a whole number').min(0, 'Must be 0 or more').optional(),
});

/** Only the fields to change. `version`, when given, must be the template's current one (else 409). */
export const updateTemplateBody = z.object({
  name: text(LIMITS.templateNameMax).optional(),
  ...presetFields,
  position: z.number().int('Must be a whole number').min(0, 'Must be 0 or more').optional(),
  version: z.number().int().min(1).optional(),
});

export type CreateTemplateBody = z.infer<typeof createTemplateBody>;
export type UpdateTemplateBody = z.infer<typeof updateTemplateBody>;

export const templateOut = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  about: z.string().nullable(),
  type: z.string().nullable(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  priority: z.string().nullable(),
  /** The labels it presets that still exist, by name. */
  labels: z.array(labelOut),
  storyPoints: z.number().nullable(),
  assigneeId: z.string().nullable(),
  position: z.number().int(),
  isDefault: z.boolean(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});
export type TemplateOut = z.infer<typeof templateOut>;

/** Texts of template rules (the API's 404/409 answers). */
export const TEMPLATE_ERR = {
  notFound: 'Template not found',
  exists: 'Template already exists',
  limit: `A project has at most ${LIMITS.templatesPerProject} templates`,
  stale: 'The template was changed meanwhile: reload it',
  assigneeNotMember: 'Must be a member of the project',
} as const;

/**
 * The fields of a new ticket: the request's own, then the template's for what the request left
 * out (undefined). The request wins field by field, also with null or an empty list.
 */
export function fillFromTemplate<
  T extends {
    title?: string;
    description?: string | null;
    type?: string;
    priority?: string;
    labelIds?: string[];
    storyPoints?: number | null;
    assigneeId?: string | null;
  },
>(request: T, template: TemplateOut): T {
  const out = { ...request };
  const fill = <K extends keyof T>(k: K, v: T[K] | null) => {
    if (out[k] === undefined && v !== null && v !== undefined) out[k] = v as T[K];
  };
  fill('title', template.title as T['title']);
  fill('description', template.description as T['description']);
  fill('type', template.type as T['type']);
  fill('priority', template.priority as T['priority']);
  if (template.labels.length > 0) fill('labelIds', template.labels.map((l) => l.id) as T['labelIds']);
  fill('storyPoints', template.storyPoints as T['storyPoints']);
  fill('assigneeId', template.assigneeId as T['assigneeId']);
  return out;
}
