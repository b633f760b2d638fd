/** The audit log (issue 19): what is recorded, in the change's transaction, how it is read and kept. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, pruneAudit } from '../src/domain/audit.js';
import { requestCtx, transact } from '../src/domain/context.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket } from './helpers/board.js';
import { type Client, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';

let t: TestApp;
let admin: Client;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signUp(t.app, { username: unique('boss') }); // the first account is a system administrator
});
afterAll(async () => t.close());

interface Entry {
  id: string;
  at: string;
  actor: { id: string; username: string | null } | null;
  action: string;
  target: { type: string; id: string | null } | null;
  address: string | null;
  details: Record<string, unknown> | null;
}

async function entries(query = ''): Promise<Entry[]> {
  const res = await admin.get(`/api/admin/audit?limit=200${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items;
}

describe('the audit log', () => {
  it('records sign-ins, failures, sign-outs and account changes, with who and from where', async () => {
    const name = unique('al');
    const u = await signUp(t.app, { username: name, email: `${name}@example.com` });
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: name, password: 'Wrong-password-1' },
      remoteAddress: '192.0.2.44',
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/callback/credentials',
      payload: { username: 'nobody-here', password: 'Wrong-password-1' },
    });
    expect(
      (await u.patch('/api/me/email', { email: `${name}2@example.com`, password: PASSWORD })).statusCode,
    ).toBe(200);
    const key = (await u.post('/api/me/api-keys', { name: 'k', scope: 'read' })).json();
    await u.del(`/api/me/api-keys/${key.id}`);
    await u.post('/api/me/mcp-key');
    const second = await signIn(t.app, name);
    await u.del('/api/me/sessions');
    expect(
      (await u.patch('/api/me/password', { currentPassword: PASSWORD, newPassword: 'Brand-new-pass-44' }))
        .statusCode,
    ).toBe(200);
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/signout',
      headers: { cookie: second.cookie, accept: 'application/json' },
    });

    const mine = (await entries(`&actor=${name}`)).reverse();
    expect(mine.map((e) => e.action)).toEqual([
      'auth.login', // signUp signs in
      'auth.login_failed',
      'account.email_changed',
      'api_key.created',
      'api_key.revoked',
      'api_key.created',
      'auth.login',
      'session.ended',
      'api_key.revoked', // the MCP key ends with the password (issue 49)
      'account.password_changed',
    ]);
    expect(mine[8].details).toEqual({ name: 'MCP', reason: 'password changed' });
    const failed = mine[1];
    expect(failed).toMatchObject({
      actor: { id: u.userId, username: name },
      address: '192.0.2.44',
      details: { login: name, reason: 'password' },
    });
    const unknown = (await entries('&action=auth.login_failed')).find(
      (e) => e.details?.login === 'nobody-here',
    );
    expect(unknown).toMatchObject({ actor: null, details: { reason: 'unknown user' } });
    expect(mine[3]).toMatchObject({
      target: { type: 'api_key', id: key.id },
      details: { name: 'k', scope: 'read' },
    });
    // The ended session's sign-out found no session: nothing to record.
    expect(JSON.stringify(mine)).not.toContain('Brand-new-pass-44');
    expect(JSON.stringify(mine)).not.toContain(PASSWORD);
    expect(JSON.stringify(mine)).not.toContain(key.key);
  });

  it("records administrators' actions, project deletions, role changes and ticket deletions", async () => {
    const made = await admin.post('/api/admin/users', {
      username: unique('made'),
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });
    const userId = made.json().id;
    await admin.patch(`/api/admin/users/${userId}`, { isActive: false });
    await admin.patch('/api/admin/settings', { maxAttachmentsPerTicket: 7 });
    await admin.del(`/api/admin/users/${userId}`, { confirmPassword: PASSWORD });
    const owner = await signUp(t.app);
    const helper = await signUp(t.app);
    const p = await makeProject(owner);
    const m = await addMember(owner, p.id, helper);
    await owner.patch(`/api/projects/${p.id}/members/${m.id}`, { role: 'admin' });
    await owner.del(`/api/projects/${p.id}/members/${m.id}`);
    const a = await makeTicket(owner, p.id, { title: 'Gone one' });
    const b = await makeTicket(owner, p.id, { title: 'Gone two' });
    const c = await makeTicket(owner, p.id, { title: 'Gone three' });
    await owner.del(`/api/projects/${p.id}/tickets/${a.id}`);
    expect(
      (await owner.del(`/api/projects/${p.id}/tickets`, { ticketIds: [b.id, c.id] })).json().deleted,
    ).toBe(2);
    await owner.del(`/api/projects/${p.id}`);

    const adminActions = (await entries('&action=admin.*')).reverse();
    expect(adminActions.slice(-4).map((e) => e.action)).toEqual([
      'admin.user_created',
      'admin.user_updated',
      'admin.settings_updated',
      'admin.user_deleted',
    ]);
    expect(adminActions.at(-2)?.details).toEqual({ maxAttachmentsPerTicket: 7 });
    expect(adminActions.at(-3)?.details).toMatchObject({ isActive: false });
    const projectEntries = (await entries(`&actor=${owner.userId}`)).reverse();
    expect(projectEntries.map((e) => e.action)).toEqual([
      'auth.login',
      'member.added',
      'member.role_changed',
      'member.removed',
      'ticket.deleted',
      'ticket.deleted',
      'ticket.deleted',
      'project.deleted',
    ]);
    expect(projectEntries[2].details).toMatchObject({ userId: helper.userId, from: 'member', to: 'admin' });
    expect(projectEntries[4].details).toEqual({ key: a.key, title: 'Gone one' });
    expect(projectEntries[5].details).toMatchObject({ bulk: true });
    expect(projectEntries[7]).toMatchObject({
      target: { type: 'project', id: p.id },
      details: { key: p.key },
    });
  });

  it('writes entries in the transaction of the change: a change that rolls back leaves none', async () => {
    const ctx = requestCtx(t.app.services, null);
    ctx.actor = { userId: admin.userId, isSystemAdmin: true, via: 'session', sessionId: null };
    await expect(
      transact(ctx, async (tx) => {
        await audit(tx, ctx, { action: 'project.deleted', details: { marker: 'rolled-back' } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const rows = await t.app.services.db.kysely.selectFrom('audit_log').select('details').execute();
    expect(rows.some((r) => r.details?.includes('rolled-back'))).toBe(false);
    // A refused change records nothing either.
    const before = (await entries()).length;
    expect(
      (await admin.del(`/api/admin/users/${admin.userId}`, { confirmPassword: PASSWORD })).statusCode,
    ).toBe(400);
    expect((await entries()).length).toBe(before);
  });

  it('pages newest first with a cursor, filters, and refuses bad queries', async () => {
    const all = await entries();
    expect(all.length).toBeGreaterThan(5);
    const ids = all.map((e) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await admin.get(`/api/admin/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      const page = res.json();
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((e: Entry) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.slice(0, ids.length)).toEqual(ids.slice(0, seen.length));
    expect(new Set(seen).size).toBe(seen.length);
    expect((await admin.get('/api/admin/audit?since=2999-01-01T00:00:00.000Z')).json()).toEqual({
      items: [],
      nextCursor: null,
    });
    expect((await entries('&action=ticket.deleted')).every((e) => e.action === 'ticket.deleted')).toBe(true);
    for (const bad of ['limit=0', 'limit=201', 'since=yesterday', 'cursor=%27%20or%201=1', 'what=1']) {
      const res = await admin.get(`/api/admin/audit?${bad}`);
      expect(res.statusCode, bad).toBe(400);
    }
    const user = await signUp(t.app);
    expect((await user.get('/api/admin/audit')).statusCode).toBe(403);
  });

  it('keeps entries DOCKET_AUDIT_DAYS, and through wipes', async () => {
    const s = await createTestApp({ DOCKET_AUDIT_DAYS: '30' });
    try {
      const a = await signUp(s.app);
      const db = s.app.services.db.kysely;
      const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
      await db
        .insertInto('audit_log')
        .values({
          id: '00000000-0000-7000-8000-000000000001',
          at: old,
          actor_id: null,
          actor_name: null,
          action: 'auth.login',
          target_type: null,
          target_id: null,
          address: null,
          details: null,
        })
        .execute();
      expect(await pruneAudit(s.app.services)).toBe(1);
      const wiped = await a.post('/api/admin/database/wipe', {
        confirmPassword: PASSWORD,
        confirmation: 'wipe all data',
      });
      expect(wiped.statusCode).toBe(200);
      const actions = (await db.selectFrom('audit_log').select('action').orderBy('id').execute()).map(
        (r) => r.action,
      );
      expect(actions).toEqual(['auth.login', 'admin.database_wiped']);
    } finally {
      await s.close();
    }
  });
});
