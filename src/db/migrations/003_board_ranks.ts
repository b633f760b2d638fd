import { type Kysely, sql } from 'kysely';
import { rankForIndex } from '../ranks.js';

type Dialect = 'sqlite' | 'postgres';

/**
 * Board positions become fractional ranks (docs/decisions/033-board-ranks.md): a move then writes
 * the moved row only. Each column's tickets, and each project's columns, get the ranks 'a0', 'a1', …
 * in their current order (position, then number or creation), so every `order` stays what it was.
 * On PostgreSQL the rank compares byte by byte (collation "C"), as on SQLite.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const collate = (c: any) => (dialect === 'postgres' ? c.modifyEnd(sql`collate "C"`) : c);
  await db.schema.alterTable('tickets').addColumn('rank', 'text', collate).execute();
  await db.schema.alterTable('columns').addColumn('rank', 'text', collate).execute();
  await fill(db, dialect, 'tickets', 'column_id', ['position', 'number']);
  await fill(db, dialect, 'columns', 'project_id', ['position', 'created_at', 'id']);

  await db.schema.dropIndex('tickets_board_idx').execute();
  await db.schema.dropIndex('tickets_column_idx').execute();
  await db.schema.dropIndex('columns_project_position_idx').execute();
  await db.schema.alterTable('tickets').dropColumn('position').execute();
  await db.schema.alterTable('columns').dropColumn('position').execute();
  if (dialect === 'postgres') {
    await sql`alter table tickets alter column rank set not null`.execute(db);
    await sql`alter table columns alter column rank set not null`.execute(db);
  }
  // SQLite cannot add NOT NULL to an existing column; every write path sets the rank, and the
  // unique indexes below treat a NULL as distinct, so a NULL could only come from outside Docket.
  await db.schema
    .createIndex('tickets_column_rank_uq')
    .unique()
    .on('tickets')
    .columns(['column_id', 'rank'])
    .execute();
  await db.schema
    .createIndex('columns_project_rank_uq')
    .unique()
    .on('columns')
    .columns(['project_id', 'rank'])
    .execute();
}

/** Ranks 'a0', 'a1', … per scope in the given order, written in batches. */
async function fill(db: Kysely<any>, dialect: Dialect, table: string, scope: string, order: string[]) {
  let q = db.selectFrom(table).select(['id', scope]).orderBy(scope);
  for (const o of order) q = q.orderBy(o);
  const rows = (await q.execute()) as { id: string; [k: string]: string }[];
  let current = '';
  let index = 0;
  const pairs: [string, string][] = [];
  for (const r of rows) {
    if (r[scope] !== current) {
      current = r[scope];
      index = 0;
    }
    pairs.push([r.id, rankForIndex(index++)]);
  }
  for (let i = 0; i < pairs.length; i += 500) {
    const chunk = pairs.slice(i, i + 500);
    const values = sql.join(chunk.map(([id, rank]) => sql`(${id}, ${rank})`));
    if (dialect === 'postgres')
      await sql`update ${sql.table(table)} as t set rank = v.rank from (values ${values}) as v(id, rank) where t.id = v.id`.execute(
        db,
      );
    else
      await sql`with v(id, rank) as (values ${values}) update ${sql.table(table)} set rank = (select v.rank from v where v.id = ${sql.table(table)}.id) where id in (select id from v)`.execute(
        db,
      );
  }
}
