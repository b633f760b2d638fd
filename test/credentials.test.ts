/**
 * Issue 49, credentials: a password change or a reset by e-mail ends the user's sessions, API keys
 * (but those the change keeps) and OAuth grants, and says which; disabling an account ends all of
 * them; an OAuth refresh refused for another client or a wider scope leaves the token unspent.
 * Through the front door (app.inject, real HTTP for streams, a real SMTP server for the reset).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { buildApp } from '../src/server/app.js';
import { createTestApp, databaseAt, type TestApp } from './helpers/app.js';
import { docket, instance } from './helpers/cli.js';
import { type Client, clientFor, cookieFrom, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';
import { decodedMail, type Mailbox, startMailbox } from './helpers/mailbox.js';
import { SseClient } from './helpers/sse.js';

const NEW_PASSWORD = 'Brand-new-secret-77';
const REDIRECT = 'http://127.0.0.1:41999/cb';

let mailbox: Mailbox;
let t: TestApp;
let admin: Client;

beforeAll(async () => {
  mailbox = await startMailbox();
  t = await createTestApp({
    DOCKET_SMTP_URL: mailbox.smtpUrl,
    DOCKET_MAIL_FROM: 'Docket <docket@mail.example.com>',
    DOCKET_PUBLIC_URL: 'https://docket.example.com',
    DOCKET_SSE_KEEPALIVE_SECONDS: '0.2',
  });
  admin = await signUp(t.app); // the first account is a system administrator
}, 60_000);
afterAll(async () => {
  await t?.close();
  await mailbox?.stop();
});

const db = () => t.app.services.db.kysely;

async function makeKey(u: Client, name: string, scope: 'read' | 'write' = 'write') {
  const res = await u.post('/api/me/api-keys', { name, scope });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; key: string; name: string; scope: string };
}

const bearer = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}` } });

const tokenRequest = (app: FastifyInstance, fields: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });

/** An MCP client's whole way to tokens: registration, the user's consent, the code exchange. */
async function connectApp(
  app: FastifyInstance,
  u: Client,
  name = 'Assistant',
  scope: 'read' | 'write' = 'write',
) {
  const reg = await app.inject({
    method: 'POST',
    url: '/api/oauth/register',
    payload: { client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
  });
  expect(reg.statusCode, reg.body).toBe(201);
  const clientId: string = reg.json().client_id;
  const verifier = randomBytes(32).toString('base64url');
  const decided = await u.post('/api/oauth/authorization', {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'xyz',
    approve: true,
    grantScope: scope,
  });
  expect(decided.statusCode, decided.body).toBe(200);
  const code = new URL(decided.json().redirectTo).searchParams.get('code') as string;
  const tokens = await tokenRequest(app, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
  });
  expect(tokens.statusCode, tokens.body).toBe(200);
  const body = tokens.json();
  return { clientId, access: body.access_token as string, refresh: body.refresh_token as string };
}

const refresh = (app: FastifyInstance, clientId: string, token: string, extra: Record<string, string> = {}) =>
  tokenRequest(app, { grant_type: 'refresh_token', client_id: clientId, refresh_token: token, ...extra });

async function auditOf(userId: string, action: string) {
  return db()
    .selectFrom('audit_log')
    .select(['actor_id', 'target_type', 'target_id', 'details'])
    .where('action', '=', action)
    .where((eb) => eb.or([eb('actor_id', '=', userId), eb('target_id', '=', userId)]))
    .execute();
}

describe('a password change', () => {
  it('ends the other sessions, every API key and OAuth grant but the keys it keeps, and says which', async () => {
    const u = await signUp(t.app);
    const other = await signIn(t.app, u.username);
    const kept = await makeKey(u, 'Deploy');
    const ended = await makeKey(u, 'Laptop', 'read');
    const mcp = await u.post('/api/me/mcp-key');
    expect(mcp.statusCode).toBe(201);
    const mcpKey: string = mcp.json().apiKey;
    const mcpId = (await u.get('/api/me/api-keys')).json().find((k: { name: string }) => k.name === 'MCP').id;
    const oauth = await connectApp(t.app, u, 'Claude');
    const grantId = (await u.get('/api/me/oauth-grants')).json()[0].id;
    for (const token of [kept.key, ended.key, mcpKey, oauth.access])
      expect((await bearer(t.app, token)).statusCode).toBe(200);

    const res = await u.patch('/api/me/password', {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      keepApiKeys: [kept.id.toUpperCase()],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      ended: {
        sessions: 1,
        apiKeys: [
          { id: mcpId, name: 'MCP', scope: 'write' },
          { id: ended.id, name: 'Laptop', scope: 'read' },
        ],
        oauthGrants: [{ id: grantId, clientId: oauth.clientId, clientName: 'Claude', scope: 'write' }],
      },
      keptApiKeys: [{ id: kept.id, name: 'Deploy', scope: 'write' }],
    });

    // What ended answers 401; the kept key and the fresh session work.
    for (const token of [ended.key, mcpKey]) {
      const r = await bearer(t.app, token);
      expect(r.statusCode).toBe(401);
      expect(r.json()).toEqual({ error: 'Invalid API key' });
    }
    const tokenAfter = await bearer(t.app, oauth.access);
    expect(tokenAfter.statusCode).toBe(401);
    expect(tokenAfter.json()).toEqual({ error: 'Invalid access token' });
    const refreshed = await refresh(t.app, oauth.clientId, oauth.refresh);
    expect(refreshed.statusCode).toBe(400);
    expect(refreshed.json().error).toBe('invalid_grant');
    expect((await other.get('/api/me')).statusCode).toBe(401);
    expect((await bearer(t.app, kept.key)).statusCode).toBe(200);
    const fresh = clientFor(t.app, { cookie: cookieFrom(res) });
    expect((await fresh.get('/api/me/api-keys')).json().map((k: { id: string }) => k.id)).toEqual([kept.id]);
    expect((await fresh.get('/api/me/oauth-grants')).json()).toEqual([]);

    // The audit log names each key and grant that ended, and why.
    const revoked = await db()
      .selectFrom('audit_log')
      .select(['target_id', 'details', 'actor_id'])
      .where('action', '=', 'api_key.revoked')
      .where('target_id', 'in', [ended.id, mcpId, kept.id])
      .execute();
    expect(revoked.map((r) => r.target_id).sort()).toEqual([ended.id, mcpId].sort());
    for (const r of revoked) {
      expect(r.actor_id).toBe(u.userId);
      expect(JSON.parse(r.details as string).reason).toBe('password changed');
    }
    const grant = await db()
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'oauth.grant_revoked')
      .where('target_id', '=', grantId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(grant.details as string)).toEqual({
      clientId: oauth.clientId,
      reason: 'password changed',
    });
    const sessions = await auditOf(u.userId, 'session.ended');
    expect(sessions.map((s) => JSON.parse(s.details as string))).toEqual([
      { reason: 'password changed', count: 1 },
    ]);
  }, 60_000);

  it('without keepApiKeys ends every key', async () => {
    const u = await signUp(t.app);
    const a = await makeKey(u, 'A');
    const res = await u.patch('/api/me/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().ended.apiKeys).toEqual([{ id: a.id, name: 'A', scope: 'write' }]);
    expect(res.json().keptApiKeys).toEqual([]);
    expect((await bearer(t.app, a.key)).statusCode).toBe(401);
  });

  it('refuses to keep a key that is not one of the user’s, and changes nothing', async () => {
    const u = await signUp(t.app);
    const stranger = await signUp(t.app);
    const mine = await makeKey(u, 'Mine');
    const theirs = await makeKey(stranger, 'Theirs');
    for (const keep of [[mine.id, theirs.id], ['no-such-key']]) {
      const res = await u.patch('/api/me/password', {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
        keepApiKeys: keep,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({
        error: 'Validation failed',
        details: [{ path: `keepApiKeys.${keep.length - 1}`, message: 'Not one of your API keys' }],
      });
    }
    // Nothing changed: the old password, the session and both keys still work.
    expect((await u.get('/api/me')).statusCode).toBe(200);
    expect((await bearer(t.app, mine.key)).statusCode).toBe(200);
    expect((await bearer(t.app, theirs.key)).statusCode).toBe(200);
    await signIn(t.app, u.username, PASSWORD);
    const tooMany = await u.patch('/api/me/password', {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      keepApiKeys: Array.from({ length: 51 }, (_, i) => `k${i}`),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toBe('Validation failed');
  });

  it('closes the streams of what ended at once, and keeps the kept key’s stream open', async () => {
    const u = await signUp(t.app);
    const kept = await makeKey(u, 'Kept');
    const ended = await makeKey(u, 'Ended');
    const oauth = await connectApp(t.app, u);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/users/events`;
    const open = (token: string) => SseClient.open(url, { authorization: `Bearer ${token}` });
    const [sKept, sEnded, sToken] = [await open(kept.key), await open(ended.key), await open(oauth.access)];
    try {
      for (const s of [sKept, sEnded, sToken]) expect(s.status).toBe(200);
      // An access token's stream outlives the re-validations (every 0.2 s here) while it is valid.
      await sToken.until(() => sToken.comments.length >= 3, 5000, 'three keepalives');
      expect(sToken.ended).toBe(false);
      const res = await u.patch('/api/me/password', {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
        keepApiKeys: [kept.id],
      });
      expect(res.statusCode, res.body).toBe(200);
      await sEnded.waitForEnd(2000);
      await sToken.waitForEnd(2000);
      // Still open after further re-validations, and still delivering.
      const seen = sKept.comments.length;
      await sKept.until(() => sKept.comments.length >= seen + 3, 5000, 'three more keepalives');
      expect(sKept.ended).toBe(false);
      await admin.patch('/api/me', { name: unique('Renamed') });
      await sKept.waitForType('user.updated');
    } finally {
      for (const s of [sKept, sEnded, sToken]) s.close();
    }
  }, 20_000);
});

describe('a password reset by e-mail', () => {
  it('ends every session, API key and OAuth grant of the account, and says which', async () => {
    const email = `${unique('r')}@example.com`;
    const u = await signUp(t.app, { email });
    const key = await makeKey(u, 'Planted');
    const oauth = await connectApp(t.app, u, 'Planted app');
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/auth/forgot', payload: { email } })).statusCode,
    ).toBe(200);
    const [mail] = await mailbox.waitFor(email, 1);
    const token = /reset-password#token=([A-Za-z0-9_-]+)/.exec(decodedMail(mail.raw))?.[1] as string;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/reset',
      payload: { token, password: NEW_PASSWORD },
    });
    expect(res.statusCode, res.body).toBe(200);
    const grantId = (
      await db()
        .selectFrom('audit_log')
        .select('target_id')
        .where('action', '=', 'oauth.grant_approved')
        .where('actor_id', '=', u.userId)
        .executeTakeFirstOrThrow()
    ).target_id;
    expect(res.json()).toEqual({
      success: true,
      ended: {
        sessions: 1,
        apiKeys: [{ id: key.id, name: 'Planted', scope: 'write' }],
        oauthGrants: [{ id: grantId, clientId: oauth.clientId, clientName: 'Planted app', scope: 'write' }],
      },
      keptApiKeys: [],
    });
    expect((await u.get('/api/me')).statusCode).toBe(401);
    expect((await bearer(t.app, key.key)).statusCode).toBe(401);
    expect((await bearer(t.app, oauth.access)).statusCode).toBe(401);
    expect((await refresh(t.app, oauth.clientId, oauth.refresh)).json().error).toBe('invalid_grant');
    const revoked = await auditOf(u.userId, 'api_key.revoked');
    expect(revoked.map((r) => JSON.parse(r.details as string))).toEqual([
      { name: 'Planted', reason: 'password reset' },
    ]);
  });
});

describe('disabling an account', () => {
  it('ends its sessions, API keys and OAuth grants at once; enabling it again brings none back', async () => {
    const u = await signUp(t.app);
    const key = await makeKey(u, 'Script');
    const oauth = await connectApp(t.app, u);
    const off = await admin.patch(`/api/admin/users/${u.userId}`, { isActive: false });
    expect(off.statusCode, off.body).toBe(200);
    expect((await u.get('/api/me')).statusCode).toBe(401);
    expect((await bearer(t.app, key.key)).statusCode).toBe(401);
    expect((await bearer(t.app, oauth.access)).statusCode).toBe(401);
    const on = await admin.patch(`/api/admin/users/${u.userId}`, { isActive: true });
    expect(on.statusCode, on.body).toBe(200);
    expect((await bearer(t.app, key.key)).json()).toEqual({ error: 'Invalid API key' });
    expect((await bearer(t.app, oauth.access)).json()).toEqual({ error: 'Invalid access token' });
    expect((await refresh(t.app, oauth.clientId, oauth.refresh)).json().error).toBe('invalid_grant');
    const back = await signIn(t.app, u.username);
    expect((await back.get('/api/me/api-keys')).json()).toEqual([]);
    expect((await back.get('/api/me/oauth-grants')).json()).toEqual([]);
    // Recorded with the administrator as the actor.
    const revoked = await db()
      .selectFrom('audit_log')
      .select(['actor_id', 'details'])
      .where('action', '=', 'api_key.revoked')
      .where('target_id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(revoked.actor_id).toBe(admin.userId);
    expect(JSON.parse(revoked.details as string).reason).toBe('account disabled');
  });
});

describe('the operator’s reset-password command', () => {
  it('ends the account’s sessions, API keys and OAuth grants too', async () => {
    const inst = await instance();
    const app = await buildApp(loadConfig({ ...inst.env, DOCKET_REGISTER_LIMIT: '1000' }), {
      logger: false,
      webRoot: path.join(os.tmpdir(), 'docket-no-web'),
    });
    try {
      const u = await signUp(app);
      const key = await makeKey(u, 'Script');
      const oauth = await connectApp(app, u);
      const reset = await docket(inst, ['admin', 'reset-password', u.username, '--password', NEW_PASSWORD]);
      expect(reset.code, reset.stderr).toBe(0);
      expect(reset.stdout).toContain('their sessions, API keys and connected apps were ended');
      expect((await u.get('/api/me')).statusCode).toBe(401);
      expect((await bearer(app, key.key)).statusCode).toBe(401);
      expect((await bearer(app, oauth.access)).statusCode).toBe(401);
    } finally {
      await app.close();
      await inst.drop();
    }
  }, 120_000);
});

describe('an OAuth refresh that is refused', () => {
  it('for a wider scope leaves the refresh token unspent: the owner’s next refresh works', async () => {
    const u = await signUp(t.app);
    const c = await connectApp(t.app, u, 'Reader', 'read');
    const wider = await refresh(t.app, c.clientId, c.refresh, { scope: 'write' });
    expect(wider.statusCode).toBe(400);
    expect(wider.json().error).toBe('invalid_scope');
    const next = await refresh(t.app, c.clientId, c.refresh);
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().scope).toBe('read');
    expect((await bearer(t.app, next.json().access_token)).statusCode).toBe(200);
    expect(await auditOf(u.userId, 'oauth.grant_revoked')).toEqual([]);
  });

  it('for another client leaves it unspent too', async () => {
    const u = await signUp(t.app);
    const mine = await connectApp(t.app, u, 'Mine');
    const thief = await connectApp(t.app, await signUp(t.app), 'Thief');
    const stolen = await refresh(t.app, thief.clientId, mine.refresh);
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().error).toBe('invalid_grant');
    const next = await refresh(t.app, mine.clientId, mine.refresh);
    expect(next.statusCode, next.body).toBe(200);
    expect((await bearer(t.app, next.json().access_token)).statusCode).toBe(200);
    // The rotation still holds: the spent token again revokes the grant.
    const reuse = await refresh(t.app, mine.clientId, mine.refresh);
    expect(reuse.json().error).toBe('invalid_grant');
    expect((await bearer(t.app, next.json().access_token)).statusCode).toBe(401);
  });
});

describe('migration 105', () => {
  it('ends the keys, grants and sessions that accounts disabled before it kept', async () => {
    const d = await databaseAt('094_search_facets_postgres');
    try {
      const now = new Date().toISOString();
      const user = (id: string, active: number) => ({
        id,
        username: id,
        password_hash: 'x',
        is_system_admin: 0,
        is_active: active,
        created_at: now,
        updated_at: now,
      });
      await d.kysely
        .insertInto('users')
        .values([user('on', 1), user('off', 0)])
        .execute();
      for (const u of ['on', 'off']) {
        await d.kysely
          .insertInto('api_keys')
          .values({
            id: `k-${u}`,
            user_id: u,
            name: 'K',
            scope: 'write',
            key_hash: `h-${u}`,
            created_at: now,
          })
          .execute();
        await d.kysely
          .insertInto('sessions')
          .values({
            id: `s-${u}`,
            user_id: u,
            token_hash: `t-${u}`,
            created_at: now,
            expires_at: '2999-01-01T00:00:00.000Z',
          })
          .execute();
      }
      await d.kysely
        .insertInto('oauth_clients')
        .values({
          id: 'c',
          name: 'C',
          redirect_uris: '[]',
          auth_method: 'none',
          secret_hash: null,
          client_uri: null,
          created_at: now,
        })
        .execute();
      for (const u of ['on', 'off']) {
        await d.kysely
          .insertInto('oauth_grants')
          .values({ id: `g-${u}`, user_id: u, client_id: 'c', scope: 'write', created_at: now })
          .execute();
        await d.kysely
          .insertInto('oauth_tokens')
          .values({
            token_hash: `a-${u}`,
            grant_id: `g-${u}`,
            kind: 'access',
            scope: 'write',
            created_at: now,
            expires_at: '2999-01-01T00:00:00.000Z',
          })
          .execute();
      }
      await migrateToLatest(d.db);
      const ids = async (table: 'api_keys' | 'sessions' | 'oauth_grants') =>
        (await d.kysely.selectFrom(table).select('user_id').execute()).map(
          (r: { user_id: string }) => r.user_id,
        );
      expect(await ids('api_keys')).toEqual(['on']);
      expect(await ids('sessions')).toEqual(['on']);
      expect(await ids('oauth_grants')).toEqual(['on']);
      const tokens = await d.kysely.selectFrom('oauth_tokens').select('grant_id').execute();
      expect(tokens).toEqual([{ grant_id: 'g-on' }]);
    } finally {
      await d.drop();
    }
  });
});
