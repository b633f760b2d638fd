import Database from 'better-sqlite3';
const d = new Database(process.argv[2] + '/docket.db', { readonly: true });
const pids = d.prepare('select id from projects').all().map((r: any) => r.id);
const done = d.prepare("select id from columns where name = 'Done'").all().map((r: any) => r.id);
const ph = (n: number) => Array(n).fill('?').join(',');
const where = `t.project_id in (${ph(pids.length)}) and t.type in ('Bug') and t.priority in ('High','Highest','Critical') and not t.column_id in (${ph(done.length)})`;
const args = [...pids, ...done];
for (const [name, sql] of [
  ['count', `select count(*) from tickets t where ${where}`],
  ['page', `select t.id, t.title, t.updated_at from tickets t join projects p on p.id = t.project_id left join users a on a.id = t.assignee_id where ${where} order by t.updated_at desc, t.id asc limit 51`],
  ['scan', `select count(*) from tickets t where t.type = 'Bug'`],
]) {
  const st = d.prepare(sql);
  console.log(name, d.prepare('explain query plan ' + sql).all(...(sql.includes('?') ? args : [])).map((r: any) => r.detail).join(' | '));
  const s = performance.now();
  st.all(...(sql.includes('?') ? args : []));
  console.log('  ', (performance.now() - s).toFixed(1), 'ms');
}
console.log(d.prepare("select name, sql from sqlite_master where type='index' and tbl_name='tickets'").all().map((r: any) => r.name).join(', '));
