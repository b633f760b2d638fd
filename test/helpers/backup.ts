import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { rankForIndex } from '../../src/db/ranks.js';
import type { TicketsTable } from '../../src/db/types.js';
import { BACKUP_TABLES, KEY_COLUMNS } from '../../src/domain/backup/format.js';
import { newId } from '../../src/domain/ids.js';
import { FILE_KINDS, type FileKind } from '../../src/files/storage.js';
import { type Client, PASSWORD, signUp, unique } from './factories.js';

/** A multipart/form-data body with text fields and an optional file. */
export function multipart(
  fields: Record<string, string>,
  file?: { field?: string; name?: string; content: Buffer | string },
) {
  const boundary = `----docket${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name ?? 'backup.json'}"\r\nContent-Type: application/json\r\n\r\n`,
      ),
    );
    parts.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Every row of every backed-up table (in key order) and every stored file: what a round trip must keep. */
export async function snapshot(app: FastifyInstance) {
  const db = app.services.db.kysely as unknown as Kysely<any>;
  const data: Record<string, unknown[]> = {};
  for (const table of BACKUP_TABLES) {
    let q = db.selectFrom(table).selectAll();
    for (const k of KEY_COLUMNS[table]) q = q.orderBy(sql.ref(k));
    data[table] = await q.execute();
  }
  const files: Record<string, Record<string, string>> = {};
  for (const kind of FILE_KINDS) {
    files[kind] = {};
    for (const name of await app.services.files.list(kind)) {
      const chunks: Buffer[] = [];
      for await (const c of app.services.files.read(kind, name) as AsyncIterable<Buffer>) chunks.push(c);
      files[kind][name] = Buffer.concat(chunks).toString('base64');
    }
  }
  return { data, files };
}

export const storedName = (ext: string) => `${Date.now()}-${randomBytes(8).toString('hex')}.${ext}`;

export async function putFile(app: FastifyInstance, kind: FileKind, content: Buffer, ext = 'bin') {
  const name = storedName(ext);
  await app.services.files.write(kind, name, content);
  return name;
}

export interface Populated {
  admin: Client;
  alice: Client;
  bob: Client;
  counts: { users: number; projects: number; tickets: number; sprints: number };
}

/**
 * A populated instance: users (admin, members, a disabled one, one with an avatar), an API key,
 * changed settings, two projects with columns, members, labels, sprints in every state, sprint
 * settings, tickets with every field (a subtask stored before its parent), labels, watchers, links,
 * comments, history, sprint history, attachments and uploads with files of awkward sizes, saved views.
 */
export async function populate(app: FastifyInstance): Promise<Populated> {
  const admin = await signUp(app, {
    username: unique('admin'),
    email: `${unique('a')}@example.com`,
    name: 'The Admin',
  });
  const alice = await signUp(app, { username: unique('alice'), name: 'Alice Ä 🐢' });
  const bob = await signUp(app, { username: unique('bob') });
  const carol = await signUp(app, { username: unique('carol') });
  expect200(await alice.post('/api/me/mcp-key'));
  expect200(
    await admin.patch('/api/admin/settings', {
      maxImageSize: 1234567,
      allowedDocumentTypes: ['application/pdf', 'text/plain'],
    }),
  );
  expect200(await admin.patch(`/api/admin/users/${carol.userId}`, { isActive: false }));

  const db = app.services.db.kysely;
  const avatar = await putFile(app, 'avatars', randomBytes(1000), 'webp');
  await db
    .updateTable('users')
    .set({ avatar, must_change_password: 1 })
    .where('id', '=', alice.userId)
    .execute();

  const now = '2026-01-02T03:04:05.678Z';
  const projects = [newId(), newId()];
  for (const [i, id] of projects.entries()) {
    await db
      .insertInto('projects')
      .values({
        id,
        name: `Project ${i} – ünïcode`,
        key: `P${i}${unique('')
          .slice(-4)
          .toUpperCase()
          .replace(/[^A-Z0-9]/g, 'X')}`,
        description: i === 0 ? 'A *markdown* description\nwith lines' : null,
        color: '#6366F1',
        ticket_counter: 3,
        sprint_counter: 3,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  const [p0, p1] = projects;
  const cols = [newId(), newId(), newId()];
  for (const [i, id] of cols.entries()) {
    await db
      .insertInto('columns')
      .values({
        id,
        project_id: p0,
        name: ['To Do', 'In Progress', 'Done'][i],
        rank: rankForIndex(i),
        created_at: now,
      })
      .execute();
  }
  const p1col = newId();
  await db
    .insertInto('columns')
    .values({ id: p1col, project_id: p1, name: 'Only', rank: rankForIndex(0), created_at: now })
    .execute();
  await db
    .insertInto('project_members')
    .values([
      { id: newId(), project_id: p0, user_id: admin.userId, role: 'owner', created_at: now },
      { id: newId(), project_id: p0, user_id: alice.userId, role: 'admin', created_at: now },
      { id: newId(), project_id: p0, user_id: bob.userId, role: 'member', created_at: now },
      { id: newId(), project_id: p1, user_id: bob.userId, role: 'owner', created_at: now },
    ])
    .execute();
  const labels = [newId(), newId()];
  await db
    .insertInto('labels')
    .values([
      { id: labels[0], project_id: p0, name: 'bug', color: '#EF4444', created_at: now },
      { id: labels[1], project_id: p0, name: 'ux', color: '#10B981', created_at: now },
    ])
    .execute();
  const [planning, active, completed] = [newId(), newId(), newId()];
  await db
    .insertInto('sprints')
    .values([
      {
        id: planning,
        project_id: p0,
        name: 'Sprint 3',
        goal: null,
        start_date: null,
        end_date: null,
        status: 'planning',
        budget: null,
        started_at: null,
        completed_at: null,
        created_at: now,
        updated_at: now,
      },
      {
        id: active,
        project_id: p0,
        name: 'Sprint 2',
        goal: 'Ship it',
        start_date: '2026-01-05T00:00:00.000Z',
        end_date: '2026-01-19T00:00:00.000Z',
        status: 'active',
        budget: 12.5,
        started_at: '2026-01-05T09:00:00.000Z',
        completed_at: null,
        created_at: now,
        updated_at: now,
      },
      {
        id: completed,
        project_id: p0,
        name: 'Sprint 1',
        goal: 'First',
        start_date: '2025-12-01T00:00:00.000Z',
        end_date: '2025-12-15T00:00:00.000Z',
        status: 'completed',
        budget: 40,
        started_at: '2025-12-01T09:00:00.000Z',
        completed_at: '2025-12-15T17:00:00.000Z',
        created_at: now,
        updated_at: now,
      },
    ])
    .execute();
  await db
    .insertInto('sprint_settings')
    .values({
      project_id: p0,
      default_sprint_duration: 3,
      auto_carry_over: 1,
      done_column_ids: JSON.stringify([cols[2]]),
    })
    .execute();

  // The subtask's id sorts before its parent's, so the parent comes later in the backup.
  const child = newId();
  const parent = newId();
  const other = newId();
  const p1ticket = newId();
  const ticket = (id: string, number: number, extra: Partial<TicketsTable> = {}): TicketsTable => ({
    id,
    project_id: p0,
    number,
    title: `Ticket ${number} "quoted" \\ back`,
    description: null,
    type: 'Task',
    priority: 'Medium',
    column_id: cols[0],
    rank: rankForIndex(number - 1),
    assignee_id: null,
    reporter_id: admin.userId,
    sprint_id: null,
    parent_id: null,
    story_points: null,
    estimate: null,
    start_date: null,
    due_date: null,
    environment: null,
    affected_version: null,
    fix_version: null,
    is_carried_over: 0,
    carried_from_sprint_id: null,
    carried_over_count: 0,
    created_at: now,
    updated_at: now,
    ...extra,
  });
  await db
    .insertInto('tickets')
    .values([
      ticket(parent, 1, {
        description: 'Every field\n\n```js\nconst x = "y";\n```',
        type: 'Story',
        priority: 'Critical',
        column_id: cols[1],
        rank: rankForIndex(0),
        assignee_id: alice.userId,
        sprint_id: active,
        story_points: 8,
        estimate: '3d',
        start_date: '2026-01-05',
        due_date: '2026-01-20',
        environment: 'prod',
        affected_version: '1.2',
        fix_version: '1.3',
        is_carried_over: 1,
        carried_from_sprint_id: completed,
        carried_over_count: 2,
      }),
      ticket(other, 2, {
        type: 'Bug',
        priority: 'Lowest',
        column_id: cols[2],
        rank: rankForIndex(0),
        sprint_id: planning,
      }),
      ticket(p1ticket, 1, { project_id: p1, column_id: p1col, rank: rankForIndex(0), reporter_id: null }),
    ])
    .execute();
  await db
    .insertInto('tickets')
    .values(
      ticket(child, 3, {
        type: 'Subtask',
        parent_id: parent,
        rank: rankForIndex(1),
        assignee_id: bob.userId,
      }),
    )
    .execute();
  await db
    .insertInto('ticket_labels')
    .values([
      { ticket_id: parent, label_id: labels[0] },
      { ticket_id: parent, label_id: labels[1] },
      { ticket_id: other, label_id: labels[0] },
    ])
    .execute();
  await db
    .insertInto('ticket_watchers')
    .values([
      { ticket_id: parent, user_id: admin.userId },
      { ticket_id: parent, user_id: alice.userId },
    ])
    .execute();
  await db
    .insertInto('ticket_links')
    .values([
      {
        id: newId(),
        source_ticket_id: parent,
        target_ticket_id: other,
        link_type: 'blocks',
        created_by: admin.userId,
        created_at: now,
      },
      {
        id: newId(),
        source_ticket_id: other,
        target_ticket_id: p1ticket,
        link_type: 'relates_to',
        created_by: null,
        created_at: now,
      },
    ])
    .execute();
  await db
    .insertInto('comments')
    .values([
      {
        id: newId(),
        ticket_id: parent,
        author_id: alice.userId,
        content: 'First! <script>alert(1)</script>',
        created_at: now,
        updated_at: now,
      },
      {
        id: newId(),
        ticket_id: parent,
        author_id: null,
        content: 'By a deleted user',
        created_at: now,
        updated_at: '2026-01-03T00:00:00.000Z',
      },
    ])
    .execute();
  // More rows than one insert batch holds, so restore inserts in several batches.
  const many = Array.from({ length: 1100 }, (_, i) => ({
    id: newId(),
    ticket_id: other,
    author_id: i % 2 ? bob.userId : null,
    content: `Comment ${i}`,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < many.length; i += 250)
    await db
      .insertInto('comments')
      .values(many.slice(i, i + 250))
      .execute();
  const sizes = [0, 1, 2, 3, 65_536 * 4 + 1];
  for (const size of sizes) {
    const content = size === 3 ? Buffer.from([0, 255, 10]) : randomBytes(size);
    const name = await putFile(app, 'attachments', content, size === 0 ? 'txt' : 'png');
    await db
      .insertInto('attachments')
      .values({
        id: newId(),
        ticket_id: parent,
        uploader_id: size ? alice.userId : null,
        filename: `file ${size}.png`,
        mime_type: 'image/png',
        size,
        stored_name: name,
        created_at: now,
      })
      .execute();
  }
  const upload = await putFile(app, 'files', Buffer.from('plain text upload\n'), 'txt');
  const uploadId = newId();
  await db
    .insertInto('uploads')
    .values({
      id: uploadId,
      uploader_id: bob.userId,
      filename: 'notes.txt',
      mime_type: 'text/plain',
      size: 18,
      stored_name: upload,
      created_at: now,
    })
    .execute();
  // Where the upload is shown (migration 115): the parent ticket's description.
  await db
    .insertInto('upload_refs')
    .values({
      id: newId(),
      upload_id: uploadId,
      project_id: p0,
      ticket_id: parent,
      comment_id: null,
      template_id: null,
    })
    .execute();
  await db
    .insertInto('ticket_history')
    .values([
      {
        id: newId(),
        ticket_id: parent,
        field: 'priority',
        old_value: 'Medium',
        new_value: 'Critical',
        changed_by: admin.userId,
        changed_at: now,
      },
      {
        id: newId(),
        ticket_id: parent,
        field: 'assignee',
        old_value: null,
        new_value: 'Alice',
        changed_by: null,
        changed_at: now,
      },
    ])
    .execute();
  await db
    .insertInto('sprint_ticket_history')
    .values([
      {
        id: newId(),
        sprint_id: completed,
        ticket_id: parent,
        entry_type: 'added',
        entered_at: now,
        exit_status: 'carried_over',
        exited_at: now,
        story_points: 8,
      },
      {
        id: newId(),
        sprint_id: active,
        ticket_id: parent,
        entry_type: 'carried_over',
        entered_at: now,
        exit_status: null,
        exited_at: null,
        story_points: 8,
      },
      {
        id: newId(),
        sprint_id: planning,
        ticket_id: other,
        entry_type: 'added',
        entered_at: now,
        exit_status: null,
        exited_at: null,
        story_points: null,
      },
    ])
    .execute();
  const view = { query: 'type:bug sort:priority', layout: 'list' as const, created_at: now, updated_at: now };
  await db
    .insertInto('saved_views')
    .values([
      {
        ...view,
        id: newId(),
        author_id: alice.userId,
        project_id: p0,
        name: 'Shared',
        shared: 1,
        columns: '["key","title"]',
        group_by: 'status',
      },
      {
        ...view,
        id: newId(),
        author_id: bob.userId,
        project_id: null,
        name: 'Mine',
        shared: 0,
        columns: '["key"]',
        group_by: null,
      },
    ])
    .execute();
  const template = { project_id: p0, created_at: now, updated_at: now, version: 1 };
  await db
    .insertInto('ticket_templates')
    .values([
      {
        ...template,
        id: newId(),
        name: 'Bug report',
        about: 'Something broke',
        type: 'Bug',
        title: 'Bug: ',
        description: '## Steps to reproduce\n\n## Expected\n\n## Actual',
        priority: 'High',
        label_ids: JSON.stringify([labels[0]]),
        story_points: 3,
        assignee_id: alice.userId,
        position: 0,
        is_default: 1,
        created_by: alice.userId,
      },
      {
        ...template,
        id: newId(),
        name: 'Plain',
        about: null,
        type: null,
        title: null,
        description: null,
        priority: null,
        label_ids: '[]',
        story_points: null,
        assignee_id: null,
        position: 1,
        is_default: 0,
        created_by: null,
      },
    ])
    .execute();
  return { admin, alice, bob, counts: { users: 4, projects: 2, tickets: 4, sprints: 3 } };
}

function expect200(res: { statusCode: number; body: string }) {
  if (res.statusCode >= 300) throw new Error(`setup request failed: ${res.statusCode} ${res.body}`);
}

export { PASSWORD };
