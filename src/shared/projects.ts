import { z } from 'zod';
import { hexColor, idParam, paging, text, userSummaryOut } from './common.js';
import { LIMITS } from './limits.js';

/** Project roles, strongest first. */
export const PROJECT_ROLES = ['owner', 'admin', 'member'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

/** A role name in any letter case, returned in lower case. */
export const projectRole = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(PROJECT_ROLES, { error: 'Must be owner, admin or member' }));

/** Project keys: any case in, upper case stored, 2-10 letters or digits. */
export const projectKey = z
  .string()
  .trim()
  .toUpperCase()
  .regex(LIMITS.projectKeyPattern, 'Must be 2-10 letters or digits');

const description = z
  .string()
  .max(LIMITS.projectDescriptionMax, `Must be at most ${LIMITS.projectDescriptionMax} characters`);

export const createProjectBody = z.object({
  name: text(LIMITS.projectNameMax),
  key: projectKey,
  description: description.nullish(),
  color: hexColor.optional(),
});

/** The key cannot change: sending it with another value is a 400 naming `key`. */
export const updateProjectBody = z.object({
  name: text(LIMITS.projectNameMax).optional(),
  description: description.nullable().optional(),
  color: hexColor.optional(),
  key: projectKey.optional(),
  /** Lets every member delete any ticket; otherwise its reporter or an admin/owner. */
  membersMayDeleteTickets: z.boolean().optional(),
});

export const projectParams = z.object({ projectId: idParam });
export const columnParams = z.object({ projectId: idParam, columnId: idParam });
export const memberParams = z.object({ projectId: idParam, memberId: idParam });
export const labelParams = z.object({ projectId: idParam, labelId: idParam });

export const listQuery = paging;

const columnName = text(LIMITS.columnNameMax);
const columnOrder = z.number().int('Must be a whole number').min(0, 'Must be 0 or more');

export const createColumnBody = z.object({ name: columnName, order: columnOrder.optional() });
export const updateColumnBody = z.object({ name: columnName.optional(), order: columnOrder.optional() });
export const deleteColumnBody = z.object({ moveTicketsTo: idParam.optional() }).nullish();

export const addMemberBody = z
  .object({
    userId: idParam.optional(),
    username: z.string().trim().min(1).max(LIMITS.emailMax).optional(),
    role: projectRole.optional(),
  })
  .refine((b) => !!b.userId || !!b.username, { message: 'Give userId or username', path: ['userId'] });

export const updateMemberBody = z.object({ role: projectRole });

export const createLabelBody = z.object({ name: text(LIMITS.labelNameMax), color: hexColor.optional() });
export const updateLabelBody = z.object({
  name: text(LIMITS.labelNameMax).optional(),
  color: hexColor.optional(),
});

/** Texts of project rules that DECISIONS does not list in section 4. */
export const PROJECT_ERR = {
  keyImmutable: 'The project key cannot change',
  alreadyMember: 'User is already a member',
  ownerNeeded: 'A project needs an owner: make another member the owner instead',
  onlyOwnerTouchesOwner: 'Only the owner can change or remove the owner, or grant ownership',
  moveTicketsToRequired: 'Required when the column holds tickets',
} as const;

export type CreateProjectBody = z.infer<typeof createProjectBody>;
export type UpdateProjectBody = z.infer<typeof updateProjectBody>;

// ---- Answers ----

export const projectOut = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string(),
  description: z.string().nullable(),
  color: z.string(),
  /** Every member may delete any ticket (otherwise its reporter or an admin/owner). */
  membersMayDeleteTickets: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ProjectOut = z.infer<typeof projectOut>;

/** A board column; `order` is its 0-based place on the board. */
export const columnOut = z.object({ id: z.string(), name: z.string(), order: z.number().int() });
export type ColumnOut = z.infer<typeof columnOut>;

export const labelOut = z.object({ id: z.string(), name: z.string(), color: z.string() });
export type LabelOut = z.infer<typeof labelOut>;

export const memberOut = z.object({
  id: z.string(),
  userId: z.string(),
  projectId: z.string(),
  role: z.enum(PROJECT_ROLES),
  user: userSummaryOut,
});
export type MemberOut = z.infer<typeof memberOut>;
