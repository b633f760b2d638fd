import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_SCOPES } from '../src/db/changes.js';
import { SEARCH_INDEX_TABLES, TABLES, type TableName } from '../src/db/tables.js';
import { BACKUP_TABLES, ROW_SCHEMAS } from '../src/domain/backup/format.js';
import { createTestApp, dialect, type TestApp } from './helpers/app.js';

/**
 * The table registry (src/db/tables.ts) against the database's own catalogue: every table the
 * migrations made is registered once (what a write to it changes for the read cache, whether a
 * backup holds it), in an order where every table comes after the tables its foreign keys name.
 */
let t: TestApp;
let tables: string[];
let foreignKeys: { child: string; parent: string }[];

beforeAll(async () => {
  t = await createTestApp();
  const db = t.app.services.db.kysely;
  if (dialect === 'sqlite') {
    tables = (
      await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(
        db,
      )
    ).rows.map((r) => r.name);
    foreignKeys = (
      await sql<{ child: string; parent: string }>`
        select m.name as child, f."table" as parent
        from sqlite_master m, pragma_foreign_key_list(m.name) f
        where m.type = 'table'`.execute(db)
    ).rows;
  } else {
    tables = (
      await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db)
    ).rows.map((r) => r.name);
    foreignKeys = (
      await sql<{ child: string; parent: string }>`
        select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where c.contype = 'f' and n.nspname = current_schema()`.execute(db)
    ).rows;
  }
});
afterAll(async () => t.close());

/** The database's tables that are neither its own bookkeeping nor Kysely's nor the full-text index. */
const registrable = () =>
  tables.filter(
    (n) =>
      !n.startsWith('sqlite_') &&
      !n.startsWith('kysely_') &&
      !(SEARCH_INDEX_TABLES[dialect] as readonly string[]).includes(n) &&
      !(dialect === 'sqlite' && n.startsWith('ticket_fts_')),
  );

const registered = () =>
  (Object.keys(TABLES) as TableName[]).filter(
    (n) => !('only' in TABLES[n]) || (TABLES[n] as { only?: string }).only === dialect,
  );

describe('the table registry', () => {
  it("reads the database's catalogue", () => {
    expect(tables).toContain('tickets');
    expect(tables).toContain('kysely_migration');
    expect(foreignKeys).toContainEqual({ child: 'tickets', parent: 'projects' });
  });

  it('registers every table of the database, and only those', () => {
    expect(registered().sort()).toEqual(registrable().sort());
  });

  it('has the full-text index tables it names, on their database', () => {
    for (const name of SEARCH_INDEX_TABLES[dialect]) expect(tables, name).toContain(name);
  });

  it('says for every table what a write to it changes for the read cache', () => {
    for (const name of tables.filter((n) => !n.startsWith('sqlite_') && !n.startsWith('ticket_fts_'))) {
      if ((SEARCH_INDEX_TABLES[dialect] as readonly string[]).includes(name)) continue;
      expect(TABLE_SCOPES[name], name).toBeDefined();
    }
  });

  it('puts every table after the tables its foreign keys name (the backup inserts in this order)', () => {
    const order = Object.keys(TABLES);
    const late = foreignKeys.filter(
      (k) =>
        k.child !== k.parent &&
        order.includes(k.child) &&
        order.includes(k.parent) &&
        order.indexOf(k.parent) > order.indexOf(k.child),
    );
    expect(late).toEqual([]);
  });

  it("backs up exactly the tables it marks, each with a schema for every one of the database's columns", async () => {
    expect([...BACKUP_TABLES].sort()).toEqual(
      registered()
        .filter((n) => TABLES[n].backup)
        .sort(),
    );
    const db = t.app.services.db.kysely;
    for (const table of BACKUP_TABLES) {
      const columns =
        dialect === 'sqlite'
          ? (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows
          : (
              await sql<{ name: string }>`
                select column_name as name from information_schema.columns
                where table_schema = current_schema() and table_name = ${table}`.execute(db)
            ).rows;
      expect([table, ...Object.keys(ROW_SCHEMAS[table].shape).sort()]).toEqual([
        table,
        ...columns.map((c) => c.name).sort(),
      ]);
    }
  });
});
