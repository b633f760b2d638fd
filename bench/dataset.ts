/**
 * The performance-budget data set (issue 11): 20 projects of 5,000 tickets each (100,000 tickets),
 * 100 users, built with bench/generate.ts (one project per call: its owner and four members,
 * columns, labels, tickets with labels and watchers), then, with direct inserts: every user of
 * project 1 a member of every project (so the project list has 20 entries), three sprints per
 * project (completed, active, planning) holding tickets, one comment for every other ticket, and
 * two history entries per ticket. Project 1 has 1,000 tickets in one column (the board list).
 *
 *   DOCKET_DATA_DIR=./data npx tsx bench/dataset.ts
 *   DATABASE_URL=postgres://… npx tsx bench/dataset.ts
 */
import { pathToFileURL } from 'node:url';
import { connect, type Db } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { newId, nowIso } from '../src/domain/ids.js';
import { type Generated, generate } from './generate.js';

export interface Dataset {
  main: Generated;
  projects: Generated[];
  tickets: number;
  users: number;
  comments: number;
  history: number;
  millis: number;
}

const chunk = <T>(list: T[], size: number) =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

export async function buildDataset(
  db: Db,
  opts: { projects?: number; ticketsPerProject?: number; log?: (s: string) => void } = {},
): Promise<Dataset> {
  const started = performance.now();
  const count = opts.projects ?? 20;
  const per = opts.ticketsPerProject ?? 5_000;
  const projects: Generated[] = [];
  const stamp = Date.now().toString(36).toUpperCase().slice(-5);
  for (let i = 0; i < count; i++) {
    projects.push(
      await generate(db, {
        tickets: per,
        inColumn: i === 0 ? 1_000 : 250,
        key: `P${i}${stamp}`.slice(0, 10),
      }),
    );
    opts.log?.(`project ${i + 1}/${count}`);
  }
  const k = db.kysely;
  const now = nowIso();
  const main = projects[0];
  const mainUsers = await k
    .selectFrom('project_members')
    .select('user_id')
    .where('project_id', '=', main.projectId)
    .execute();
  let comments = 0;
  let history = 0;
  await k.transaction().execute(async (tx) => {
    // The users of the first project join every other one (as members), so lists span 20 projects.
    const memberships = projects.slice(1).flatMap((p) =>
      mainUsers.map((u) => ({
        id: newId(),
        project_id: p.projectId,
        user_id: u.user_id,
        role: 'member' as const,
        created_at: now,
      })),
    );
    for (const part of chunk(memberships, 1000))
      await tx.insertInto('project_members').values(part).execute();

    for (const p of projects) {
      const owner = await tx
        .selectFrom('project_members')
        .select('user_id')
        .where('project_id', '=', p.projectId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      const day = 86_400_000;
      const iso = (d: number) => new Date(Date.UTC(2026, 9, 1) + d * day).toISOString();
      const sprints = (['completed', 'active', 'planning'] as const).map((status, i) => ({
        id: newId(),
        project_id: p.projectId,
        name: `Sprint ${i + 1}`,
        goal: `Goal ${i + 1}`,
        start_date: status === 'planning' ? null : iso(i * 14),
        end_date: status === 'planning' ? null : iso(i * 14 + 14),
        status,
        budget: 40,
        started_at: status === 'planning' ? null : iso(i * 14),
        completed_at: status === 'completed' ? iso(14) : null,
        created_at: now,
        updated_at: now,
      }));
      await tx.insertInto('sprints').values(sprints).execute();
      await tx.updateTable('projects').set({ sprint_counter: 3 }).where('id', '=', p.projectId).execute();

      const tickets = await tx
        .selectFrom('tickets')
        .select(['id', 'number'])
        .where('project_id', '=', p.projectId)
        .orderBy('number')
        .execute();
      // Tickets 1..60 in the completed sprint, 61..120 in the active one, 121..160 planned.
      const sprintOf = (n: number) =>
        n <= 60 ? sprints[0] : n <= 120 ? sprints[1] : n <= 160 ? sprints[2] : null;
      for (const s of sprints) {
        const ids = tickets.filter((t) => sprintOf(t.number) === s).map((t) => t.id);
        for (const part of chunk(ids, 500))
          await tx.updateTable('tickets').set({ sprint_id: s.id }).where('id', 'in', part).execute();
        const entries = ids.map((ticket_id) => ({
          id: newId(),
          sprint_id: s.id,
          ticket_id,
          entry_type: 'added' as const,
          entered_at: s.started_at ?? now,
          exit_status: s.status === 'completed' ? ('completed' as const) : null,
          exited_at: s.status === 'completed' ? s.completed_at : null,
          story_points: 3,
        }));
        for (const part of chunk(entries, 1000))
          await tx.insertInto('sprint_ticket_history').values(part).execute();
      }

      const commentRows = tickets
        .filter((t) => t.number % 2 === 0)
        .map((t) => ({
          id: newId(),
          ticket_id: t.id,
          author_id: owner.user_id,
          content: `A comment on ticket ${t.number}: looks good, but see the **edge case** in the description.`,
          created_at: now,
          updated_at: now,
        }));
      for (const part of chunk(commentRows, 1000)) await tx.insertInto('comments').values(part).execute();
      comments += commentRows.length;

      const historyRows = tickets.flatMap((t) => [
        {
          id: newId(),
          ticket_id: t.id,
          field: 'priority',
          old_value: 'Medium',
          new_value: 'High',
          changed_by: owner.user_id,
          changed_at: now,
        },
        {
          id: newId(),
          ticket_id: t.id,
          field: 'status',
          old_value: 'To Do',
          new_value: 'In Progress',
          changed_by: owner.user_id,
          changed_at: now,
        },
      ]);
      for (const part of chunk(historyRows, 1000))
        await tx.insertInto('ticket_history').values(part).execute();
      history += historyRows.length;
      opts.log?.(`sprints, comments and history of ${p.projectKey}`);
    }
  });
  return {
    main,
    projects,
    tickets: count * per,
    users: count * 5,
    comments,
    history,
    millis: Math.round(performance.now() - started),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const db = await connect({
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: process.env.DOCKET_DATA_DIR ?? './data',
  });
  await migrateToLatest(db);
  const out = await buildDataset(db, { log: (s) => console.error(s) });
  console.log(JSON.stringify({ ...out, projects: out.projects.map((p) => p.projectKey) }, null, 2));
  await db.close();
}
