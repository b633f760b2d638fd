import { sql } from 'kysely';
import type { UploadRefsTable } from '../db/types.js';
import { uploadNamesIn } from '../shared/files.js';
import { type Actor, actorOf, type Ctx, type Tx } from './context.js';
import { newId } from './ids.js';

/**
 * Who may read an uploaded file (`POST /api/upload`, served at `/uploads/files/<name>`): the
 * members of every project whose ticket description, comment or ticket template shows it (table
 * `upload_refs`), its uploader, and system administrators by session (they read every project).
 * A file shown nowhere yet is its uploader's alone (docs/security.md "Uploaded files",
 * docs/decisions/058-trust-findings.md).
 *
 * The rows are written with the Markdown that shows the file, in its transaction. A name in the
 * text counts only when the writer may read that file then, or when the same place showed it
 * already: knowing a file's address is not enough to show it to another project. A name that does
 * not count stays in the text and shows nothing to those who may not read it.
 */

/** A place that shows Markdown: a ticket's description, a comment, or a template's description. */
export interface RefPlace {
  projectId: string;
  ticketId?: string;
  commentId?: string;
  templateId?: string;
}

/** A place with its text as saved now and as it was before (null: new). */
export interface PlaceText {
  place: RefPlace;
  text: string | null | undefined;
  before: string | null | undefined;
}

const placeKey = (p: {
  ticket_id?: string | null;
  comment_id?: string | null;
  template_id?: string | null;
}) => (p.comment_id ? `c:${p.comment_id}` : p.template_id ? `m:${p.template_id}` : `t:${p.ticket_id}`);

const keyOf = (p: RefPlace) =>
  placeKey({ ticket_id: p.ticketId, comment_id: p.commentId, template_id: p.templateId });

/** The ids of `uploads` that the actor may read now. */
export async function readableUploads(
  tx: Tx,
  actor: Actor,
  uploads: { id: string; uploader_id: string | null }[],
): Promise<Set<string>> {
  // Administrators by session read every project, so every file; an API key never has their powers.
  if (actor.isSystemAdmin) return new Set(uploads.map((u) => u.id));
  const out = new Set(uploads.filter((u) => u.uploader_id === actor.userId).map((u) => u.id));
  const rest = uploads.filter((u) => !out.has(u.id)).map((u) => u.id);
  for (let i = 0; i < rest.length; i += 500) {
    const shown = await tx
      .selectFrom('upload_refs as r')
      .innerJoin('project_members as m', (j) =>
        j.onRef('m.project_id', '=', 'r.project_id').on('m.user_id', '=', actor.userId),
      )
      .select('r.upload_id')
      .distinct()
      .where('r.upload_id', 'in', rest.slice(i, i + 500))
      .execute();
    for (const r of shown) out.add(r.upload_id);
  }
  return out;
}

/**
 * Records which uploaded files the places' texts show, after the texts were written, in the
 * writing transaction. Places whose text shows no file, before or now, cost nothing.
 */
export async function recordUploadRefs(ctx: Ctx, tx: Tx, places: PlaceText[]): Promise<void> {
  const touched = places.filter((p) => uploadNamesIn(p.text).length + uploadNamesIn(p.before).length > 0);
  if (touched.length === 0) return;
  const wanted = new Map(touched.map((p) => [keyOf(p.place), new Set(uploadNamesIn(p.text))]));
  const names = [...new Set([...wanted.values()].flatMap((s) => [...s]))];
  const uploads = new Map<string, { id: string; uploader_id: string | null }>();
  for (let i = 0; i < names.length; i += 500) {
    const rows = await tx
      .selectFrom('uploads')
      .select(['id', 'stored_name', 'uploader_id'])
      .where('stored_name', 'in', names.slice(i, i + 500))
      .execute();
    for (const r of rows) uploads.set(r.stored_name, r);
  }
  const existing = await refsOf(
    tx,
    touched.map((p) => p.place),
  );
  const had = new Set(existing.map((r) => `${placeKey(r)}\u0000${r.upload_id}`));
  const readable = await readableUploads(tx, actorOf(ctx), [...uploads.values()]);
  const keep = new Set<string>();
  const add: UploadRefsTable[] = [];
  for (const p of touched) {
    const key = keyOf(p.place);
    for (const name of wanted.get(key) ?? []) {
      const upload = uploads.get(name);
      if (!upload) continue;
      const pair = `${key}\u0000${upload.id}`;
      if (had.has(pair)) keep.add(pair);
      else if (readable.has(upload.id)) {
        keep.add(pair);
        add.push({
          id: newId(),
          upload_id: upload.id,
          project_id: p.place.projectId,
          ticket_id: p.place.ticketId ?? null,
          comment_id: p.place.commentId ?? null,
          template_id: p.place.templateId ?? null,
        });
      }
    }
  }
  const gone = existing.filter((r) => !keep.has(`${placeKey(r)}\u0000${r.upload_id}`)).map((r) => r.id);
  for (let i = 0; i < gone.length; i += 500)
    await tx
      .deleteFrom('upload_refs')
      .where('id', 'in', gone.slice(i, i + 500))
      .execute();
  for (let i = 0; i < add.length; i += 500)
    await tx
      .insertInto('upload_refs')
      .values(add.slice(i, i + 500))
      .execute();
}

/** The rows of these places (a description's rows are its ticket's rows without a comment). */
async function refsOf(tx: Tx, places: RefPlace[]): Promise<UploadRefsTable[]> {
  const descriptions = places.filter((p) => p.ticketId && !p.commentId).map((p) => p.ticketId as string);
  const comments = places.filter((p) => p.commentId).map((p) => p.commentId as string);
  const templates = places.filter((p) => p.templateId).map((p) => p.templateId as string);
  if (descriptions.length + comments.length + templates.length === 0) return [];
  return tx
    .selectFrom('upload_refs')
    .selectAll()
    .where((eb) =>
      eb.or([
        ...(descriptions.length
          ? [eb.and([eb('ticket_id', 'in', descriptions), eb('comment_id', 'is', null)])]
          : []),
        ...(comments.length ? [eb('comment_id', 'in', comments)] : []),
        ...(templates.length ? [eb('template_id', 'in', templates)] : []),
      ]),
    )
    .execute();
}

/** True when `uploadId` is shown in a project the user is a member of. */
export async function shownToMember(tx: Tx, uploadId: string, userId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('upload_refs as r')
    .innerJoin('project_members as m', (j) =>
      j.onRef('m.project_id', '=', 'r.project_id').on('m.user_id', '=', userId),
    )
    .select(sql<number>`1`.as('one'))
    .where('r.upload_id', '=', uploadId)
    .executeTakeFirst();
  return !!row;
}
