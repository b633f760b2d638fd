import { type Kysely, sql } from 'kysely';
import { FACET_MARK } from '../search-facets.js';

/**
 * SQLite: the full-text index carries each ticket's facets (issue 17, docs/decisions/038-search.md
 * "Facets in the full-text index"): a fourth column, `facets`, holding one token per project, type,
 * priority, assignee, reporter and label of the ticket (src/db/search-facets.ts). Words with such a
 * condition (`crash type:bug`) are then intersected inside FTS5, from its own lists of documents,
 * instead of each word's match being looked up in its search row to test the condition: at
 * 1,000,000 tickets `crash` has 28,000 matches, of which the bugs are a fifth.
 *
 * The facets are the terms that only an edit changes, never a move or a sprint's close: a move
 * rewrites no full-text row (every token of a row is written again when one column changes).
 *
 * A facet token starts with U+E000 (a private-use character), which the tokenizer keeps as part of a
 * word (`tokenchars`) and which no query word can hold (the query's words are its letters and digits,
 * src/shared/search-query.ts searchWords): typed words never match a facet, and facets are matched
 * in their column only (`facets : (…)`). bm25 gives the column no weight, so scores are unchanged.
 *
 * FTS5 cannot add a column: the table is made again under its name and filled from the old one's
 * content, with the triggers of migrations 040 and 086 made again around it, and new ones keeping the
 * facets in step inside the writing transaction (a ticket's facet columns changed, a label put on or
 * taken off). Derived data: not in backups; a restore's inserts fill it. PostgreSQL: nothing.
 */
export async function up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect !== 'sqlite') return;
  const run = (text: string) => sql.raw(text).execute(db);
  for (const name of [
    'ticket_search_insert',
    'ticket_search_update',
    'ticket_search_delete',
    'comment_search_insert',
    'comment_search_update',
    'comment_search_delete',
  ])
    await run(`drop trigger ${name}`);
  await run('alter table ticket_fts rename to ticket_fts_old');
  await run(`create virtual table ticket_fts using fts5(title, description, comments, facets,
    tokenize = 'unicode61 remove_diacritics 2 tokenchars ''${FACET_MARK}''')`);
  await run(`insert into ticket_fts (rowid, title, description, comments, facets)
    select o.rowid, o.title, o.description, o.comments, ${facetsOf('t')}
    from ticket_fts_old o join ticket_search_ids s on s.id = o.rowid join tickets t on t.id = s.ticket_id`);
  await run('drop table ticket_fts_old');
  // One segment, as a long-lived index tends to: the rebuild wrote hundreds.
  await run(`insert into ticket_fts (ticket_fts) values ('optimize')`);

  const rowOf = (ref: string) => `(select id from ticket_search_ids where ticket_id = ${ref})`;
  const commentsOf = (ref: string) =>
    `coalesce((select group_concat(content, ' ') from comments where ticket_id = ${ref}), '')`;
  // Migrations 040 and 086, with the facets.
  await run(`create trigger ticket_search_insert after insert on tickets begin
    insert into ticket_search_ids (ticket_id, ${ROW}) values (new.id, ${ROW.split(', ')
      .map((c) => `new.${c}`)
      .join(', ')});
    insert into ticket_fts (rowid, title, description, comments, facets)
      values (${rowOf('new.id')}, new.title, coalesce(new.description, ''), ${commentsOf('new.id')},
        ${facetsOf('new')});
  end`);
  await run(`create trigger ticket_search_update after update of title, description on tickets
    when old.title is not new.title or old.description is not new.description begin
    update ticket_fts set title = new.title, description = coalesce(new.description, '')
      where rowid = ${rowOf('new.id')};
  end`);
  await run(`create trigger ticket_search_delete after delete on tickets begin
    delete from ticket_fts where rowid = ${rowOf('old.id')};
    delete from ticket_search_ids where ticket_id = old.id;
  end`);
  for (const [event, ref] of [
    ['insert', 'new.ticket_id'],
    ['update of content', 'new.ticket_id'],
    ['delete', 'old.ticket_id'],
  ] as const) {
    const name = `comment_search_${event.split(' ')[0]}`;
    await run(`create trigger ${name} after ${event} on comments begin
      update ticket_fts set comments = ${commentsOf(ref)} where rowid = ${rowOf(ref)};
    end`);
  }
  // The facets: a change of a facet's column (foreign keys' `set null` included), a label put on,
  // taken off or rewritten. A ticket's deletion takes its labels with it; by then its full-text row
  // is gone or goes right after, so their update changes nothing.
  const changed = FACET_COLUMNS.map((c) => `old.${c} is not new.${c}`).join(' or ');
  await run(`create trigger ticket_search_facets after update of ${FACET_COLUMNS.join(', ')} on tickets
    when ${changed} begin
    update ticket_fts set facets = ${facetsOf('new')} where rowid = ${rowOf('new.id')};
  end`);
  const refresh = (ref: string) =>
    `update ticket_fts set facets = (select ${facetsOf('t')} from tickets t where t.id = ${ref})
      where rowid = ${rowOf(ref)};`;
  await run(`create trigger ticket_facets_label_added after insert on ticket_labels begin
    ${refresh('new.ticket_id')}
  end`);
  await run(`create trigger ticket_facets_label_removed after delete on ticket_labels begin
    ${refresh('old.ticket_id')}
  end`);
  await run(`create trigger ticket_facets_label_changed after update on ticket_labels begin
    ${refresh('old.ticket_id')}
    ${refresh('new.ticket_id')}
  end`);
}

/** The search row's columns as migration 086 wrote them. */
const ROW =
  'project_id, number, type, priority, column_id, assignee_id, reporter_id, sprint_id, parent_id, story_points, due_date, created_at, updated_at';

/** The ticket columns the facets are made of. */
const FACET_COLUMNS = ['project_id', 'type', 'priority', 'assignee_id', 'reporter_id'];

/**
 * The facets of ticket `t` (a row of tickets: `new`, or an alias) as SQL: the same tokens as
 * search-facets.ts's facetToken, one per facet, space-separated; labels read from ticket_labels.
 */
function facetsOf(t: string): string {
  const mark = `'${FACET_MARK}'`;
  const id = (c: string) => `coalesce(replace(${t}.${c}, '-', ''), 'none')`;
  return `${mark} || 'p' || ${id('project_id')} || ' ' || ${mark} || 't' || ${t}.type
    || ' ' || ${mark} || 'y' || ${t}.priority || ' ' || ${mark} || 'a' || ${id('assignee_id')}
    || ' ' || ${mark} || 'r' || ${id('reporter_id')}
    || coalesce((select ' ' || group_concat(${mark} || 'l' || replace(label_id, '-', ''), ' ')
         from ticket_labels where ticket_id = ${t}.id), '')`;
}
