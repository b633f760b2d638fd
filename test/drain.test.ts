import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey } from './helpers/board.js';
import { type HttpUser, type ProcessDatabase, processDatabase, signUpOver } from './helpers/instances.js';
import { type ServerProcess, startDocketFromSource } from './helpers/server.js';
import { SseClient } from './helpers/sse.js';

/**
 * The graceful drain on SIGTERM, on a real server process: /api/ready fails at once while the
 * instance keeps serving (requests and streams) for DOCKET_DRAIN_SECONDS; then every event stream
 * is told when to reconnect (SSE `retry:`) and closed, and the process exits cleanly.
 */
let db: ProcessDatabase;
let server: ServerProcess;
let user: HttpUser;

beforeAll(async () => {
  db = await processDatabase('drain');
  server = await startDocketFromSource({
    ...db.env,
    DOCKET_DRAIN_SECONDS: '2',
    DOCKET_SSE_KEEPALIVE_SECONDS: '0.3',
    DOCKET_ADMIN_USERNAME: '',
    DOCKET_ADMIN_PASSWORD: '',
  });
  user = await signUpOver(server.url, 'drain');
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await db?.drop();
}, 60_000);

describe('SIGTERM', () => {
  it('fails readiness, keeps serving while the balancer notices, then closes streams with a retry hint and exits 0', async () => {
    const created = await user.send(server.url, 'POST', '/api/projects', {
      name: 'Drained',
      key: newKey('D'),
    });
    expect(created.status).toBe(201);
    const project = (await created.json()) as { id: string };
    const stream = await SseClient.open(`${server.url}/api/projects/${project.id}/events`, {
      cookie: user.cookie,
    });
    expect(stream.status).toBe(200);
    await stream.until(() => stream.messages.length > 0, 10_000, 'the first message');
    expect((await fetch(`${server.url}/api/ready`)).status).toBe(200);

    const exited = new Promise<number | null>((r) => server.child.once('exit', (code) => r(code)));
    server.child.kill('SIGTERM');

    let ready: Response | undefined;
    for (let i = 0; i < 100; i++) {
      ready = await fetch(`${server.url}/api/ready`);
      if (ready.status === 503) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(ready?.status).toBe(503);
    expect(await ready?.json()).toEqual({ status: 'unavailable', error: 'Draining' });
    // Still alive and serving: liveness, writes, and the stream that delivers them.
    expect(stream.ended).toBe(false);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    const ticket = await user.send(server.url, 'POST', `/api/projects/${project.id}/tickets`, {
      title: 'Written while draining',
    });
    expect(ticket.status).toBe(201);
    await stream.waitForType('ticket.created', 10_000);

    await stream.waitForEnd(15_000);
    const hint = stream.messages.find((m) => m.retry !== undefined);
    expect(Number(hint?.retry)).toBeGreaterThanOrEqual(1000);
    expect(Number(hint?.retry)).toBeLessThan(2000);
    expect(await exited).toBe(0);
  }, 60_000);
});
