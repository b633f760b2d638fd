import type { Kysely } from 'kysely';
import { v7 } from 'uuid';
import { UPLOAD_FILES_PATH, uploadNamesIn } from '../shared/files.js';

/**
 * Records where every uploaded file is shown, from the Markdown as it is stored: ticket
 * descriptions, comments and ticket templates' descriptions (table `upload_refs`, migration 115).
 * For data written before the rows existed: migration 115 itself, a restore of a backup of an
 * earlier version, and a restore from the trash of a ticket deleted before. New writes record
 * their rows as they save the text (src/domain/upload-refs.ts), with the writer's right to the
 * file checked; these texts were written when every signed-in user could read every upload, so
 * each reference they make counts.
 *
 * Reads the texts that name an upload 500 at a time by id, so memory stays flat on large
 * databases. `ticketIds` limits it to those tickets (their descriptions and comments).
 */
export async function recordUploadRefsFromText(db: Kysely<any>, ticketIds?: string[]): Promise<number> {
  if (ticketIds && ticketIds.length === 0) return 0;
  const like = `%${UPLOAD_FILES_PATH}%`;
  const sources = [
    {
      read: (after: string) => {
        let q = db
          .selectFrom('tickets')
          .select(['id', 'project_id', 'description as text', 'id as ticket_id'])
          .where('description', 'like', like);
        if (ticketIds) q = q.where('id', 'in', ticketIds);
        return q.where('id', '>', after).orderBy('id').limit(500).execute();
      },
      owner: (r: Row) => ({ ticket_id: r.id, comment_id: null, template_id: null }),
    },
    {
      read: (after: string) => {
        let q = db
          .selectFrom('comments as c')
          .innerJoin('tickets as t', 't.id', 'c.ticket_id')
          .select([
            'c.id as id',
            't.project_id as project_id',
            'c.content as text',
            'c.ticket_id as ticket_id',
          ])
          .where('c.content', 'like', like);
        if (ticketIds) q = q.where('c.ticket_id', 'in', ticketIds);
        return q.where('c.id', '>', after).orderBy('c.id').limit(500).execute();
      },
      owner: (r: Row) => ({ ticket_id: r.ticket_id, comment_id: r.id, template_id: null }),
    },
    {
      read: (after: string) =>
        ticketIds
          ? Promise.resolve([])
          : db
              .selectFrom('ticket_templates')
              .select(['id', 'project_id', 'description as text', 'id as ticket_id'])
              .where('description', 'like', like)
              .where('id', '>', after)
              .orderBy('id')
              .limit(500)
              .execute(),
      owner: (r: Row) => ({ ticket_id: null, comment_id: null, template_id: r.id }),
    },
  ];
  let written = 0;
  for (const source of sources) {
    let after = '';
    for (;;) {
      const rows = (await source.read(after)) as Row[];
      if (rows.length === 0) break;
      after = rows[rows.length - 1].id;
      const names = [...new Set(rows.flatMap((r) => uploadNamesIn(r.text)))];
      if (names.length === 0) continue;
      const uploads = new Map<string, string>();
      for (let i = 0; i < names.length; i += 500) {
        const found = await db
          .selectFrom('uploads')
          .select(['id', 'stored_name'])
          .where('stored_name', 'in', names.slice(i, i + 500))
          .execute();
        for (const u of found) uploads.set(u.stored_name, u.id);
      }
      const refs = rows.flatMap((r) =>
        uploadNamesIn(r.text)
          .filter((n) => uploads.has(n))
          .map((n) => ({
            id: v7(),
            upload_id: uploads.get(n),
            project_id: r.project_id,
            ...source.owner(r),
          })),
      );
      for (let i = 0; i < refs.length; i += 500)
        await db
          .insertInto('upload_refs')
          .values(refs.slice(i, i + 500))
          .execute();
      written += refs.length;
    }
  }
  return written;
}

type Row = { id: string; project_id: string; text: string | null; ticket_id: string };
