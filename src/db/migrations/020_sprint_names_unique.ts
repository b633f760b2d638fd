import { type Kysely, sql } from 'kysely';

const MAX_NAME = 100;

/**
 * Sprint names become unique in a project ignoring case (issue 20: "Sprint 4" and "sprint 4" could
 * not be told apart by name). Existing clashes are renamed first: in each project the oldest sprint
 * keeps its name, later ones get the first suffix
 * " (2)", " (3)", … that makes a name no sprint of the project has ("Sprint 4 (2)").
 */
export async function up(db: Kysely<any>): Promise<void> {
  const rows: { id: string; project_id: string; name: string }[] = await db
    .selectFrom('sprints')
    .select(['id', 'project_id', 'name'])
    .orderBy('project_id')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  // The oldest holder of each name keeps it; the others take the first suffix no sprint has.
  const taken = new Map<string, Set<string>>();
  const renames: typeof rows = [];
  for (const r of rows) {
    const names = taken.get(r.project_id) ?? new Set<string>();
    taken.set(r.project_id, names);
    if (names.has(r.name.toLowerCase())) renames.push(r);
    else names.add(r.name.toLowerCase());
  }
  for (const r of renames) {
    const names = taken.get(r.project_id) as Set<string>;
    let name = r.name;
    for (let n = 2; names.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      name = r.name.slice(0, MAX_NAME - suffix.length).trimEnd() + suffix;
    }
    names.add(name.toLowerCase());
    await db.updateTable('sprints').set({ name }).where('id', '=', r.id).execute();
  }
  await sql`create unique index sprints_project_name_uq on sprints (project_id, lower(name))`.execute(db);
}
