/**
 * The change log's reader (PostgreSQL, decision 054), in a worker thread of its own: it reads other
 * instances' entries in `cache_changes` while the main thread asks it to, and hands their scopes
 * over through a message port the main thread drains synchronously (`receiveMessageOnPort`).
 *
 * Why a thread: a reading is a round trip whose answer, on the main thread, waits behind whatever
 * the event loop is doing (ten board lists of half a megabyte going out). Here the loop does nothing
 * else, so a reading takes the round trip only and what the main thread knows stays a few
 * milliseconds fresh however busy it is. src/db/change-log.ts is the main thread's side.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { type ChangeLogShared, clock, SLOT, sharedSlots, waitAsync } from './change-log.js';
import { ALL } from './changes.js';

interface Data {
  connectionString: string;
  schema?: string;
  origin: string;
  /** The last entry already known when the reader started. */
  seen: number;
  shared: ChangeLogShared;
  port: MessagePort;
}

const data = workerData as Data;
const { f64, i32, freshAs, setFreshAs } = sharedSlots(data.shared);
const port = data.port as unknown as import('node:worker_threads').MessagePort;
const now = clock;

/** Entries older than this are pruned; an instance that read nothing for half of it trusts nothing. */
const LOG_KEEP_MS = 10 * 60_000;
/**
 * Readings while the main thread asks: one at least this long after the last one started (at most
 * 125 a second). With a reading's own time it keeps what is known well inside the 20 ms bound
 * (CHANGE_LOG_STALE_MS), at half the queries of the 4 ms it was.
 */
const READ_EVERY_MS = 8;
/** The main thread asked this long ago or more: stop reading until it asks again. */
const IDLE_AFTER_MS = 1_000;
/** One reading takes this many entries at most; more and nothing is trusted. */
const PAGE = 500;

let seen = data.seen;
let client: pg.Client | null = null;
// Pruned at the first reading, then once every LOG_KEEP_MS / 10.
let prunedAt = Number.NEGATIVE_INFINITY;
let lastStart = Number.NEGATIVE_INFINITY;
let lastFresh = freshAs();

async function connected(): Promise<pg.Client> {
  if (client) return client;
  const c = new pg.Client({
    connectionString: data.connectionString,
    ...(data.schema ? { options: `-c search_path="${data.schema}"` } : {}),
  });
  c.on('error', () => {
    // The connection was lost: the next reading connects again and, meanwhile, trusts nothing.
    if (client === c) client = null;
  });
  await c.connect();
  client = c;
  return c;
}

async function readOnce() {
  const startedAt = now();
  Atomics.add(i32, SLOT.begun, 1);
  let scopes: string[] = [];
  try {
    if (startedAt - lastFresh > LOG_KEEP_MS / 2) scopes.push(ALL);
    const c = await connected();
    // A named statement: parsed and planned once for the connection, not at every reading.
    const r = await c.query<{ id: number; origin: string; scopes: string }>({
      name: 'docket-change-log-read',
      text: 'select id, origin, scopes from cache_changes where id > $1 order by id limit $2',
      values: [seen, PAGE],
    });
    if (r.rows.length === PAGE) scopes.push(ALL);
    for (const row of r.rows) {
      if (row.origin !== data.origin) scopes.push(...row.scopes.split(' ').filter(Boolean));
      seen = Math.max(seen, Number(row.id));
    }
    if (startedAt - prunedAt > LOG_KEEP_MS / 10) {
      prunedAt = startedAt;
      const cutoff = new Date(Date.now() - LOG_KEEP_MS).toISOString();
      await c.query('delete from cache_changes where created_at < $1', [cutoff]).catch(() => {});
    }
  } catch {
    // Nothing is trusted: everything changed, which is also as fresh as a reading can make it.
    scopes = [ALL];
    const lost = client;
    client = null;
    await lost?.end().catch(() => {});
  }
  // The scopes first, then the time they are good for: the main thread reads the time, then drains
  // the port, so it never takes a time as fresh without the changes that came with it.
  if (scopes.length > 0) {
    port.postMessage(scopes);
    Atomics.add(i32, SLOT.posted, 1);
  }
  lastFresh = startedAt;
  setFreshAs(startedAt);
  Atomics.add(i32, SLOT.finished, 1);
  Atomics.notify(i32, SLOT.finished);
}

async function main() {
  for (;;) {
    if (Atomics.load(i32, SLOT.stop) === 1) break;
    const asked = Atomics.load(i32, SLOT.asked);
    const wantedAt = f64[SLOT.wantedAt];
    const t = now();
    if (t - wantedAt >= IDLE_AFTER_MS && Atomics.load(i32, SLOT.urgent) === 0) {
      // Nobody asked for a while: sleep until the main thread asks again. Said first, then the
      // request time looked at again, so a request that came meanwhile is not missed.
      Atomics.store(i32, SLOT.sleeping, 1);
      if (clock() - f64[SLOT.wantedAt] >= IDLE_AFTER_MS && Atomics.load(i32, SLOT.urgent) === 0)
        await waitAsync(i32, SLOT.asked, asked).value;
      Atomics.store(i32, SLOT.sleeping, 0);
      continue;
    }
    const wait = lastStart + READ_EVERY_MS - t;
    if (wait > 0 && Atomics.load(i32, SLOT.urgent) === 0) {
      await waitAsync(i32, SLOT.asked, asked, wait).value;
      continue;
    }
    Atomics.store(i32, SLOT.urgent, 0);
    lastStart = now();
    await readOnce();
  }
  await client?.end().catch(() => {});
  parentPort?.postMessage('stopped');
}

void main();
