import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteEntry } from '../src/server/app.js';
import { ERR } from '../src/shared/errors.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject, makeTicket, newKey } from './helpers/board.js';
import { type Client, PASSWORD, signIn, signUp, unique } from './helpers/factories.js';
import { makePng, multipartBody } from './helpers/files.js';

/**
 * The authorization matrix: every route of the application (read from the route table that
 * buildApp records with an onRoute hook) is called as each of these actors, and the status must be
 * the one written in EXPECT below. A route without an entry fails the first test, so a new endpoint
 * cannot be forgotten.
 *
 * nonMember is signed in but not in the project; projAdmin has the admin role in it; sysAdmin is a
 * system administrator who is not a member (acts as owner); apiKey is the write key of another
 * system administrator who is not a member either: accepted wherever a session is, except the
 * routes that refuse keys, and never with system-administrator powers over projects (issue 19), so
 * it reads the shared project as missing.
 */
const ACTORS = ['anonymous', 'nonMember', 'member', 'projAdmin', 'owner', 'sysAdmin', 'apiKey'] as const;
type Actor = (typeof ACTORS)[number];
type Row = [number, number, number, number, number, number, number];

// Common rows, in ACTORS order.
const ALL_200: Row = [200, 200, 200, 200, 200, 200, 200];
const SIGNED_IN = (ok: number): Row => [401, ok, ok, ok, ok, ok, ok];
const SESSION_ONLY = (ok: number): Row => [401, ok, ok, ok, ok, ok, 403];
const SYSTEM_ADMIN = (ok: number): Row => [401, 403, 403, 403, 403, ok, 403];
const PROJECT_MEMBER = (ok: number): Row => [401, 404, ok, ok, ok, ok, 404];
const PROJECT_ADMIN = (ok: number): Row => [401, 404, 403, ok, ok, ok, 404];
const PROJECT_OWNER = (ok: number): Row => [401, 404, 403, 403, ok, ok, 404];

/** The expectation table: `METHOD url` of every route, one status per actor. HEAD uses its GET row. */
const EXPECT: Record<string, Row> = {
  // Public
  'GET /api/health': ALL_200,
  'GET /api/ready': ALL_200,
  // Only with DOCKET_METRICS_TOKEN set (test/operations.test.ts); no user credential opens it.
  'GET /metrics': [404, 404, 404, 404, 404, 404, 404],
  'POST /api/auth/register': [201, 201, 201, 201, 201, 201, 201],
  'POST /api/auth/callback/credentials': ALL_200,
  'POST /api/auth/verify-credentials': ALL_200,
  'GET /api/auth/session': ALL_200,
  'POST /api/auth/signout': ALL_200,
  // Forgotten passwords and single sign-on: public; the provider here answers nothing, so a single
  // sign-on goes back to the sign-in page (302).
  'GET /api/auth/options': ALL_200,
  'POST /api/auth/forgot': ALL_200,
  'POST /api/auth/reset': [400, 400, 400, 400, 400, 400, 400],
  'POST /api/auth/confirm': [400, 400, 400, 400, 400, 400, 400],
  'GET /api/auth/oidc/start': [302, 302, 302, 302, 302, 302, 302],
  'GET /api/auth/oidc/callback': [302, 302, 302, 302, 302, 302, 302],
  'GET /api/openapi.json': ALL_200,
  'GET /api/docs': ALL_200,
  'GET /api/docs/static/index.html': [302, 302, 302, 302, 302, 302, 302],
  'GET /api/docs/static/swagger-initializer.js': ALL_200,
  'GET /api/docs/json': ALL_200,
  'GET /api/docs/yaml': ALL_200,
  'GET /api/docs/static/*': ALL_200,
  'GET /': ALL_200,
  // MCP over HTTP authenticates with the key alone: a session cookie is not enough.
  'POST /api/mcp': [401, 401, 401, 401, 401, 401, 200],
  'GET /api/mcp': [405, 405, 405, 405, 405, 405, 405],
  'DELETE /api/mcp': [405, 405, 405, 405, 405, 405, 405],
  // OAuth for MCP clients (docs/mcp.md): the client's endpoints are public, the consent and the
  // grants need the signed-in person.
  'GET /.well-known/oauth-protected-resource/api/mcp': ALL_200,
  'GET /.well-known/oauth-authorization-server': ALL_200,
  'POST /api/oauth/register': [201, 201, 201, 201, 201, 201, 201],
  'POST /api/oauth/token': ALL_200,
  'POST /api/oauth/revoke': ALL_200,
  'GET /api/oauth/authorization': SESSION_ONLY(200),
  'POST /api/oauth/authorization': SESSION_ONLY(200),
  'GET /api/me/oauth-grants': SESSION_ONLY(200),
  'DELETE /api/me/oauth-grants/:grantId': SESSION_ONLY(200), // a grant of the same user

  // The signed-in user
  'GET /api/me': SIGNED_IN(200),
  'PATCH /api/me': SIGNED_IN(200),
  'PATCH /api/me/email': SESSION_ONLY(200),
  'PATCH /api/me/password': SESSION_ONLY(400), // wrong current password: past the gate, refused by the check
  'DELETE /api/me/account': SESSION_ONLY(400), // likewise
  'POST /api/me/mcp-key': SESSION_ONLY(201),
  'GET /api/me/mcp-key': SESSION_ONLY(200),
  'DELETE /api/me/mcp-key': SESSION_ONLY(200),
  'GET /api/me/sessions': SESSION_ONLY(200),
  'DELETE /api/me/sessions/:sessionId': SESSION_ONLY(200), // another session of the same user
  'DELETE /api/me/sessions': SESSION_ONLY(200),
  'GET /api/me/api-keys': SESSION_ONLY(200),
  'POST /api/me/api-keys': SESSION_ONLY(201),
  'DELETE /api/me/api-keys/:keyId': SESSION_ONLY(200), // a key of the same user
  'GET /api/me/two-factor': SESSION_ONLY(200),
  'POST /api/me/two-factor': SESSION_ONLY(200),
  'POST /api/me/two-factor/enable': SESSION_ONLY(400), // a wrong code: past the gate, refused by the check
  'DELETE /api/me/two-factor': SESSION_ONLY(400), // likewise (wrong password)
  'POST /api/me/avatar': SIGNED_IN(200),
  'DELETE /api/me/avatar': SIGNED_IN(200),
  'GET /api/users': SIGNED_IN(200),
  'GET /api/upload': SIGNED_IN(200),
  'POST /api/upload': SIGNED_IN(201),
  'GET /api/users/events': SIGNED_IN(200),
  'GET /api/projects/events': SIGNED_IN(200),
  'GET /api/me/notifications': SIGNED_IN(200),
  'POST /api/me/notifications/read': SIGNED_IN(200),
  'GET /api/me/notification-settings': SIGNED_IN(200),
  'PATCH /api/me/notification-settings': SIGNED_IN(200),
  // The unsubscribe link: its signed token is the credential (a forged one is a 400 for everyone).
  'GET /api/notifications/unsubscribe': ALL_200,
  'POST /api/notifications/unsubscribe': [400, 400, 400, 400, 400, 400, 400],

  // System administration
  'GET /api/admin/users': SYSTEM_ADMIN(200),
  'POST /api/admin/users': SYSTEM_ADMIN(201),
  'GET /api/admin/users/:userId': SYSTEM_ADMIN(200),
  'PATCH /api/admin/users/:userId': SYSTEM_ADMIN(200),
  'DELETE /api/admin/users/:userId': SYSTEM_ADMIN(200),
  'GET /api/admin/settings': SYSTEM_ADMIN(200),
  'GET /api/admin/audit': SYSTEM_ADMIN(200),
  'GET /api/admin/security': SYSTEM_ADMIN(200),
  'PATCH /api/admin/security': SYSTEM_ADMIN(200),
  'PATCH /api/admin/settings': SYSTEM_ADMIN(200),
  'POST /api/admin/database/export': SYSTEM_ADMIN(200),
  'POST /api/admin/database/import': SYSTEM_ADMIN(400), // wrong confirmPassword: past the gate
  'POST /api/admin/database/wipe': SYSTEM_ADMIN(400), // likewise
  'POST /api/admin/database/wipe-projects': SYSTEM_ADMIN(400), // likewise

  // Projects
  'GET /api/projects': SIGNED_IN(200),
  'POST /api/projects': SIGNED_IN(201),
  'GET /api/projects/:projectId': PROJECT_MEMBER(200),
  'PATCH /api/projects/:projectId': PROJECT_ADMIN(200),
  'DELETE /api/projects/:projectId': PROJECT_OWNER(200),
  'GET /api/projects/:projectId/events': PROJECT_MEMBER(200),
  'GET /api/projects/:projectId/columns': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/columns': PROJECT_ADMIN(201),
  'PATCH /api/projects/:projectId/columns/:columnId': PROJECT_ADMIN(200),
  'DELETE /api/projects/:projectId/columns/:columnId': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/members': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/members': PROJECT_ADMIN(201),
  'PATCH /api/projects/:projectId/members/:memberId': PROJECT_ADMIN(200),
  'DELETE /api/projects/:projectId/members/:memberId': PROJECT_ADMIN(200), // another member; self-removal is tested elsewhere
  'GET /api/projects/:projectId/labels': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/labels': PROJECT_MEMBER(201),
  'PATCH /api/projects/:projectId/labels/:labelId': PROJECT_MEMBER(200),
  'DELETE /api/projects/:projectId/labels/:labelId': PROJECT_MEMBER(200),
  // Ticket templates (decision 050): members read them, admins and owners manage them.
  'GET /api/projects/:projectId/templates': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/templates': PROJECT_ADMIN(201),
  'PATCH /api/projects/:projectId/templates/:templateId': PROJECT_ADMIN(200),
  'DELETE /api/projects/:projectId/templates/:templateId': PROJECT_ADMIN(200),

  // Tickets
  'GET /api/projects/:projectId/tickets': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/tickets': PROJECT_MEMBER(201),
  'PATCH /api/projects/:projectId/tickets': PROJECT_MEMBER(200),
  // Tickets reported by the owner: a plain member may delete only their own (issue 23).
  'DELETE /api/projects/:projectId/tickets': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/tickets/:ticketId': PROJECT_MEMBER(200),
  'PATCH /api/projects/:projectId/tickets/:ticketId': PROJECT_MEMBER(200),
  'DELETE /api/projects/:projectId/tickets/:ticketId': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/tickets/:ticketId/history': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/tickets/:ticketId/links': PROJECT_MEMBER(201),
  'DELETE /api/projects/:projectId/tickets/:ticketId/links/:linkId': PROJECT_MEMBER(200),
  'GET /api/projects/:projectId/tickets/:ticketId/comments': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/tickets/:ticketId/comments': PROJECT_MEMBER(201),
  // The comment belongs to projAdmin: only its author edits it; its author or an admin/owner deletes it.
  'PATCH /api/projects/:projectId/tickets/:ticketId/comments/:commentId': [401, 404, 403, 200, 403, 403, 404],
  'DELETE /api/projects/:projectId/tickets/:ticketId/comments/:commentId': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/tickets/:ticketId/attachments': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/tickets/:ticketId/attachments': PROJECT_MEMBER(201),
  // The attachment belongs to the owner: its uploader or an admin/owner deletes it.
  'DELETE /api/projects/:projectId/tickets/:ticketId/attachments/:attachmentId': PROJECT_ADMIN(200),
  'GET /uploads/:kind/:name': PROJECT_MEMBER(200), // an attachment's file

  // Sprints
  'GET /api/projects/:projectId/sprints': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/sprints': PROJECT_MEMBER(201),
  'GET /api/projects/:projectId/sprints/active': PROJECT_MEMBER(200),
  'GET /api/projects/:projectId/sprints/settings': PROJECT_MEMBER(200),
  'PATCH /api/projects/:projectId/sprints/settings': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/sprints/velocity': PROJECT_MEMBER(200),
  'GET /api/projects/:projectId/epics': PROJECT_MEMBER(200),
  'GET /api/projects/:projectId/timeline': PROJECT_MEMBER(200),
  'GET /api/projects/:projectId/sprints/:sprintId': PROJECT_MEMBER(200),
  'PATCH /api/projects/:projectId/sprints/:sprintId': PROJECT_MEMBER(200),
  'DELETE /api/projects/:projectId/sprints/:sprintId': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/sprints/:sprintId/start': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/sprints/:sprintId/complete': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/sprints/:sprintId/extend': PROJECT_MEMBER(200),
  'GET /api/projects/:projectId/sprints/:sprintId/burndown': PROJECT_MEMBER(200),

  // Search and saved views (the view in the path is shared in the project by its owner)
  'GET /api/search': SIGNED_IN(200),
  'GET /api/views': SIGNED_IN(200),
  'POST /api/views': SIGNED_IN(201),
  'PATCH /api/views/:viewId': PROJECT_ADMIN(200),
  'DELETE /api/views/:viewId': PROJECT_ADMIN(200),

  // Webhooks (project admins and owners)
  // Export for members, imports for admins and owners (issue 21, docs/import.md).
  'GET /api/projects/:projectId/tickets.csv': PROJECT_MEMBER(200),
  // The trash (decision 048): a member sees and restores only what they deleted (here the owner did).
  'GET /api/projects/:projectId/trash': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/trash/:trashId/restore': PROJECT_ADMIN(200),
  'DELETE /api/projects/:projectId/trash/:trashId': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/tickets.json': PROJECT_MEMBER(200),
  'POST /api/projects/:projectId/imports': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/webhooks': PROJECT_ADMIN(200),
  'POST /api/projects/:projectId/webhooks': PROJECT_ADMIN(201),
  'GET /api/projects/:projectId/webhooks/:webhookId': PROJECT_ADMIN(200),
  'PATCH /api/projects/:projectId/webhooks/:webhookId': PROJECT_ADMIN(200),
  'DELETE /api/projects/:projectId/webhooks/:webhookId': PROJECT_ADMIN(200),
  'GET /api/projects/:projectId/webhooks/:webhookId/deliveries': PROJECT_ADMIN(200),
  'POST /api/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver': PROJECT_ADMIN(201),
};

/** The key of a route in EXPECT; HEAD routes (generated for GET) share the GET row. */
const keyOf = (r: Pick<RouteEntry, 'method' | 'url'>) => `${r.method === 'HEAD' ? 'GET' : r.method} ${r.url}`;

interface Req {
  path: string;
  json?: unknown;
  multipart?: { payload: Buffer; headers: Record<string, string> };
  headers?: Record<string, string>;
}

let t: TestApp;
let baseUrl: string;
const users = {} as Record<Exclude<Actor, 'anonymous' | 'apiKey'>, Client> & {
  spare: Client;
  keyAdmin: Client;
};
let apiKey: string;
let png: Buffer;

/** The shared project and its records; destructive calls get fresh records instead. */
const w = {} as {
  projectId: string;
  columnId: string;
  ticketId: string;
  labelId: string;
  templateId: string;
  commentId: string;
  sprintId: string;
  linkId: string;
  attachmentId: string;
  attachmentUrl: string;
};

async function ok<T = any>(
  res: { statusCode: number; body: string; json(): unknown },
  status = 200,
): Promise<T> {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

async function freshProject() {
  const p = await makeProject(users.owner);
  await addMember(users.owner, p.id, users.projAdmin, 'admin');
  await addMember(users.owner, p.id, users.member, 'member');
  return p;
}

async function spareMembership(projectId: string, present: boolean): Promise<string | null> {
  const members = await ok<{ id: string; userId: string }[]>(
    await users.owner.get(`/api/projects/${projectId}/members`),
  );
  const current = members.find((m) => m.userId === users.spare.userId);
  if (current && !present)
    await ok(await users.owner.del(`/api/projects/${projectId}/members/${current.id}`));
  if (!current && present) return (await addMember(users.owner, projectId, users.spare)).id;
  return current?.id ?? null;
}

const attach = async (projectId: string, ticketId: string) =>
  ok(
    await users.owner.req({
      method: 'POST',
      url: `/api/projects/${projectId}/tickets/${ticketId}/attachments`,
      ...multipartBody([{ filename: 'shot.png', contentType: 'image/png', data: png }]),
    }),
    201,
  );

const startedSprint = async () => {
  const p = await freshProject();
  const s = await ok(await users.owner.post(`/api/projects/${p.id}/sprints`, {}), 201);
  await ok(await users.owner.post(`/api/projects/${p.id}/sprints/${s.id}/start`, {}));
  return { p, s };
};

const OAUTH_REDIRECT = 'http://127.0.0.1:41999/cb';
const OAUTH_VERIFIER = 'v'.repeat(43);
let oauthClientId: string | null = null;
const oauthClient = async () => {
  if (!oauthClientId) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/register',
      payload: { redirect_uris: [OAUTH_REDIRECT], token_endpoint_auth_method: 'none' },
    });
    oauthClientId = res.json().client_id as string;
  }
  return oauthClientId;
};
const oauthRequest = async () => ({
  response_type: 'code',
  client_id: await oauthClient(),
  redirect_uri: OAUTH_REDIRECT,
  code_challenge: createHash('sha256').update(OAUTH_VERIFIER).digest('base64url'),
  code_challenge_method: 'S256',
});
/** A user's consent: a grant and its code. */
const oauthCode = async (who: Client) => {
  const body = { ...(await oauthRequest()), approve: true, grantScope: 'read' };
  const back = new URL((await ok(await who.post('/api/oauth/authorization', body))).redirectTo);
  const grant = await t.app.services.db.kysely
    .selectFrom('oauth_grants')
    .select('id')
    .where('user_id', '=', who.userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return { clientId: await oauthClient(), code: back.searchParams.get('code') as string, grantId: grant.id };
};

const P = '/api/projects/:projectId';
const T = `${P}/tickets/:ticketId`;

/** How to call a route for an actor so that, when allowed, it succeeds (fresh records where it destroys). */
const PREPARE: Record<string, (actor: Actor) => Promise<Partial<Req> & { params?: Record<string, string> }>> =
  {
    'POST /api/auth/register': async () => ({ json: { username: unique('reg'), password: PASSWORD } }),
    'POST /api/views': async () => ({ json: { name: 'Mine', query: 'type:bug' } }),
    'PATCH /api/views/:viewId': async () => ({
      params: { viewId: await sharedView() },
      json: { name: 'Renamed' },
    }),
    'DELETE /api/views/:viewId': async () => ({ params: { viewId: await sharedView() } }),
    'POST /api/auth/callback/credentials': async () => ({
      json: { username: users.spare.username, password: PASSWORD },
    }),
    'POST /api/auth/verify-credentials': async () => ({
      json: { username: users.spare.username, password: PASSWORD },
    }),
    'POST /api/auth/forgot': async () => ({ json: { email: `${unique('nobody')}@example.com` } }),
    'POST /api/auth/reset': async () => ({ json: { token: 'x'.repeat(43), password: PASSWORD } }),
    'POST /api/auth/confirm': async () => ({ json: { token: 'x'.repeat(43), password: PASSWORD } }),
    // Signing out ends the session: use a second session of the same user.
    'POST /api/auth/signout': async (actor) => ({
      json: { callbackUrl: '/' },
      headers: {
        accept: 'application/json',
        ...(actor in users
          ? { cookie: (await signIn(t.app, users[actor as 'member'].username)).cookie }
          : {}),
      },
    }),
    'GET /api/docs/static/*': async () => ({ path: '/api/docs/static/swagger-ui.css' }),
    'POST /api/mcp': async () => ({
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    }),
    'POST /api/oauth/register': async () => ({
      json: { client_name: 'Matrix', redirect_uris: [OAUTH_REDIRECT], token_endpoint_auth_method: 'none' },
    }),
    'GET /api/oauth/authorization': async () => ({
      path: `/api/oauth/authorization?${new URLSearchParams(await oauthRequest())}`,
    }),
    'POST /api/oauth/authorization': async () => ({ json: { ...(await oauthRequest()), approve: false } }),
    // A fresh code of another user for every call: the exchange is the client's, whoever else asks.
    'POST /api/oauth/token': async () => {
      const c = await oauthCode(users.spare);
      return {
        json: {
          grant_type: 'authorization_code',
          client_id: c.clientId,
          code: c.code,
          code_verifier: OAUTH_VERIFIER,
          redirect_uri: OAUTH_REDIRECT,
        },
      };
    },
    'POST /api/oauth/revoke': async () => ({
      json: { client_id: await oauthClient(), token: 'dkor_unknown' },
    }),
    'DELETE /api/me/oauth-grants/:grantId': async (actor) => {
      const who = actor in users ? users[actor as 'member'] : users.spare;
      return { params: { grantId: (await oauthCode(who)).grantId } };
    },
    'PATCH /api/me': async () => ({ json: { name: 'Renamed' } }),
    'POST /api/me/api-keys': async () => ({ json: { name: 'ci', scope: 'read' } }),
    'POST /api/me/two-factor/enable': async () => ({ json: { code: '000000' } }),
    'DELETE /api/me/two-factor': async () => ({ json: { password: 'Wrong-password-42', code: '000000' } }),
    'DELETE /api/me/api-keys/:keyId': async (actor) => {
      const who = actor in users ? users[actor as 'member'] : users.spare;
      const key = await ok(await who.post('/api/me/api-keys', { name: 'doomed', scope: 'write' }), 201);
      return { params: { keyId: key.id } };
    },
    'DELETE /api/me/sessions/:sessionId': async (actor) => {
      const who = actor in users ? users[actor as 'member'] : users.spare;
      await signIn(t.app, who.username);
      const row = await t.app.services.db.kysely
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', who.userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      return { params: { sessionId: row.id } };
    },
    'POST /api/me/notifications/read': async () => ({ json: { all: true } }),
    'PATCH /api/me/notification-settings': async () => ({ json: { email: 'digest' } }),
    'GET /api/notifications/unsubscribe': async () => ({ path: '/api/notifications/unsubscribe?token=a.b' }),
    'POST /api/notifications/unsubscribe': async () => ({ path: '/api/notifications/unsubscribe?token=a.b' }),
    'PATCH /api/me/email': async () => ({
      json: { email: `${unique('e')}@example.com`, password: PASSWORD },
    }),
    'PATCH /api/me/password': async () => ({
      json: { currentPassword: 'Wrong-password-42', newPassword: 'Another-horse-43' },
    }),
    'DELETE /api/me/account': async () => ({
      json: { password: 'Wrong-password-42', confirmation: 'delete my account' },
    }),
    'POST /api/me/avatar': async () => ({
      multipart: multipartBody([{ filename: 'me.png', contentType: 'image/png', data: png }]),
    }),
    'POST /api/upload': async () => ({
      multipart: multipartBody([{ filename: 'up.png', contentType: 'image/png', data: png }]),
    }),
    'POST /api/admin/users': async () => ({
      json: { username: unique('adm'), password: PASSWORD, confirmPassword: PASSWORD },
    }),
    'PATCH /api/admin/users/:userId': async () => ({ json: { name: 'Spare' } }),
    'DELETE /api/admin/users/:userId': async () => {
      const doomed = await signUp(t.app);
      return { params: { userId: doomed.userId }, json: { confirmPassword: PASSWORD } };
    },
    'PATCH /api/admin/settings': async () => ({ json: { maxAttachmentsPerTicket: 20 } }),
    'PATCH /api/admin/security': async () => ({ json: { requireTwoFactor: false } }),
    'POST /api/admin/database/export': async () => ({ json: { confirmPassword: PASSWORD } }),
    'POST /api/admin/database/import': async () => ({
      multipart: multipartBody(
        [{ filename: 'b.json', contentType: 'application/json', data: Buffer.from('{}') }],
        {
          confirmPassword: 'Wrong-password-42',
        },
      ),
    }),
    'POST /api/admin/database/wipe': async () => ({
      json: { confirmPassword: 'Wrong-password-42', confirmation: 'wipe all data' },
    }),
    'POST /api/admin/database/wipe-projects': async () => ({
      json: { confirmPassword: 'Wrong-password-42' },
    }),
    'POST /api/projects': async () => ({ json: { name: 'Mine', key: newKey('M') } }),
    [`PATCH ${P}`]: async () => ({ json: { description: 'Changed' } }),
    [`DELETE ${P}`]: async () => ({ params: { projectId: (await freshProject()).id } }),
    [`GET ${P}/timeline`]: async () => ({
      path: `/api/projects/${w.projectId}/timeline?from=2026-01-01&to=2026-03-31`,
    }),
    [`POST ${P}/columns`]: async () => ({ json: { name: unique('col') } }),
    [`PATCH ${P}/columns/:columnId`]: async () => ({ json: { name: unique('col') } }),
    [`DELETE ${P}/columns/:columnId`]: async () => {
      const c = await ok(
        await users.owner.post(`/api/projects/${w.projectId}/columns`, { name: unique('gone') }),
        201,
      );
      return { params: { columnId: c.id } };
    },
    [`POST ${P}/members`]: async () => {
      await spareMembership(w.projectId, false);
      return { json: { userId: users.spare.userId } };
    },
    [`PATCH ${P}/members/:memberId`]: async () => ({
      params: { memberId: (await spareMembership(w.projectId, true)) as string },
      json: { role: 'admin' },
    }),
    [`DELETE ${P}/members/:memberId`]: async () => ({
      params: { memberId: (await spareMembership(w.projectId, true)) as string },
    }),
    [`POST ${P}/labels`]: async () => ({ json: { name: unique('lab') } }),
    [`PATCH ${P}/labels/:labelId`]: async () => ({ json: { color: '#112233' } }),
    [`DELETE ${P}/labels/:labelId`]: async () => {
      const l = await ok(
        await users.owner.post(`/api/projects/${w.projectId}/labels`, { name: unique('gone') }),
        201,
      );
      return { params: { labelId: l.id } };
    },
    [`POST ${P}/templates`]: async () => ({ json: { name: unique('tpl'), title: 'Bug: ' } }),
    [`PATCH ${P}/templates/:templateId`]: async () => ({ json: { about: unique('about') } }),
    [`DELETE ${P}/templates/:templateId`]: async () => {
      const tpl = await ok(
        await users.owner.post(`/api/projects/${w.projectId}/templates`, { name: unique('gone') }),
        201,
      );
      return { params: { templateId: tpl.id } };
    },
    [`POST ${P}/tickets`]: async () => ({ json: { title: 'New ticket' } }),
    [`PATCH ${P}/tickets`]: async () => ({
      json: { ticketIds: [w.ticketId], updates: { priority: 'High' } },
    }),
    [`DELETE ${P}/tickets`]: async () => ({
      json: { ticketIds: [(await makeTicket(users.owner, w.projectId)).id] },
    }),
    [`PATCH ${T}`]: async () => ({ json: { title: 'Edited' } }),
    [`DELETE ${T}`]: async () => ({ params: { ticketId: (await makeTicket(users.owner, w.projectId)).id } }),
    [`POST ${T}/links`]: async () => ({
      json: { targetTicketId: (await makeTicket(users.owner, w.projectId)).id, linkType: 'relates_to' },
    }),
    [`DELETE ${T}/links/:linkId`]: async () => {
      const target = await makeTicket(users.owner, w.projectId);
      const link = await ok(
        await users.owner.post(`/api/projects/${w.projectId}/tickets/${w.ticketId}/links`, {
          targetTicketId: target.id,
          linkType: 'blocks',
        }),
        201,
      );
      return { params: { linkId: link.id } };
    },
    [`POST ${T}/comments`]: async () => ({ json: { content: 'A comment' } }),
    [`PATCH ${T}/comments/:commentId`]: async () => ({ json: { content: 'Edited comment' } }),
    [`DELETE ${T}/comments/:commentId`]: async () => {
      const c = await ok(
        await users.projAdmin.post(`/api/projects/${w.projectId}/tickets/${w.ticketId}/comments`, {
          content: 'x',
        }),
        201,
      );
      return { params: { commentId: c.id } };
    },
    // A dry run: answers what it would create, and writes nothing.
    [`POST ${P}/imports`]: async () => ({
      multipart: multipartBody(
        [{ filename: 'i.csv', contentType: 'text/csv', data: Buffer.from('Title\nImported\n') }],
        { format: 'csv', dryRun: 'true' },
      ),
    }),
    [`POST ${T}/attachments`]: async () => ({
      multipart: multipartBody([{ filename: 'a.png', contentType: 'image/png', data: png }]),
    }),
    [`DELETE ${T}/attachments/:attachmentId`]: async () => ({
      params: { attachmentId: (await attach(w.projectId, w.ticketId)).id },
    }),
    'GET /uploads/:kind/:name': async () => ({ path: w.attachmentUrl }),
    [`POST ${P}/sprints`]: async () => ({ json: { goal: 'Ship' } }),
    [`PATCH ${P}/sprints/settings`]: async () => ({ json: { defaultSprintDuration: 2 } }),
    [`PATCH ${P}/sprints/:sprintId`]: async () => ({ json: { goal: 'Changed' } }),
    [`DELETE ${P}/sprints/:sprintId`]: async () => {
      const s = await ok(await users.owner.post(`/api/projects/${w.projectId}/sprints`, {}), 201);
      return { params: { sprintId: s.id } };
    },
    [`POST ${P}/sprints/:sprintId/start`]: async () => {
      const p = await freshProject();
      const s = await ok(await users.owner.post(`/api/projects/${p.id}/sprints`, {}), 201);
      return { params: { projectId: p.id, sprintId: s.id }, json: {} };
    },
    [`POST ${P}/sprints/:sprintId/complete`]: async () => {
      const { p, s } = await startedSprint();
      return { params: { projectId: p.id, sprintId: s.id }, json: { incompleteAction: 'moveToBacklog' } };
    },
    [`POST ${P}/sprints/:sprintId/extend`]: async () => {
      const { p, s } = await startedSprint();
      return {
        params: { projectId: p.id, sprintId: s.id },
        json: { newEndDate: new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10) },
      };
    },
  };

const HOOK = { url: 'https://hooks.example.com/docket', events: ['ticket.created'] };
const W = `${P}/webhooks/:webhookId`;
/** Room under the per-project hook limit: the earlier calls' hooks go. */
const noHooks = () =>
  t.app.services.db.kysely.deleteFrom('webhooks').where('project_id', '=', w.projectId).execute();
/** A webhook of the shared project, made by its owner. */
async function aHook(): Promise<string> {
  await noHooks();
  return (await ok(await users.owner.post(`/api/projects/${w.projectId}/webhooks`, HOOK), 201)).id;
}
/** A hook with one delivery (a ticket made after it). */
async function aDelivery(): Promise<Record<string, string>> {
  const webhookId = await aHook();
  await makeTicket(users.owner, w.projectId);
  const row = await t.app.services.db.kysely
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('hook_id', '=', webhookId)
    .executeTakeFirstOrThrow();
  return { webhookId, deliveryId: row.id };
}
/** A ticket of the shared project that its owner deleted: its trash entry. */
async function trashed(): Promise<Record<string, string>> {
  const ticket = await makeTicket(users.owner, w.projectId);
  const out = await ok(await users.owner.del(`/api/projects/${w.projectId}/tickets/${ticket.id}`));
  return { trashId: out.trashId };
}
Object.assign(PREPARE, {
  [`POST ${P}/trash/:trashId/restore`]: async () => ({ params: await trashed() }),
  [`DELETE ${P}/trash/:trashId`]: async () => ({ params: await trashed() }),
  [`POST ${P}/webhooks`]: async () => {
    await noHooks();
    return { json: HOOK };
  },
  [`GET ${W}`]: async () => ({ params: { webhookId: await aHook() } }),
  [`PATCH ${W}`]: async () => ({ params: { webhookId: await aHook() }, json: { active: false } }),
  [`DELETE ${W}`]: async () => ({ params: { webhookId: await aHook() } }),
  [`GET ${W}/deliveries`]: async () => ({ params: { webhookId: await aHook() } }),
  [`POST ${W}/deliveries/:deliveryId/redeliver`]: async () => ({ params: await aDelivery() }),
});

/** A view the owner shares in the shared project. */
async function sharedView(): Promise<string> {
  const res = await users.owner.post('/api/views', {
    name: 'Team',
    query: '',
    projectId: w.projectId,
    shared: true,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

function fill(url: string, params: Record<string, string>): string {
  return url.replace(/:(\w+)/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`no value for :${name} in ${url}`);
    return encodeURIComponent(v);
  });
}

/** One real HTTP request; event streams are closed once their headers have arrived. */
async function send(actor: Actor, method: string, req: Req) {
  const headers: Record<string, string> = {};
  if (actor === 'apiKey') headers.authorization = `Bearer ${apiKey}`;
  else if (actor !== 'anonymous') headers.cookie = users[actor].cookie;
  let body: Blob | string | undefined;
  if (req.multipart) {
    Object.assign(headers, req.multipart.headers);
    body = new Blob([new Uint8Array(req.multipart.payload)]);
  } else if (req.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(req.json);
  }
  Object.assign(headers, req.headers ?? {});
  const abort = new AbortController();
  const res = await fetch(baseUrl + req.path, {
    method,
    headers,
    body,
    redirect: 'manual',
    signal: abort.signal,
  });
  let text = '';
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) abort.abort();
  else text = await res.text();
  return { status: res.status, text };
}

function errorOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: unknown }).error as string | undefined;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  // E-mail (sent by no instance) and single sign-on (with a provider that answers nothing) are
  // configured, so that their routes answer as they do in use.
  t = await createTestApp({
    DOCKET_SMTP_URL: 'smtp://127.0.0.1:1',
    DOCKET_MAIL_FROM: 'docket@example.com',
    DOCKET_MAIL_SENDER: 'off',
    DOCKET_OIDC_ISSUER: 'http://127.0.0.1:1',
    DOCKET_OIDC_CLIENT_ID: 'docket',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  png = await makePng(8, 8);
  users.sysAdmin = await signUp(t.app); // the first account is a system administrator
  expect(users.sysAdmin.isSystemAdmin).toBe(true);
  users.owner = await signUp(t.app);
  users.projAdmin = await signUp(t.app);
  users.member = await signUp(t.app);
  users.nonMember = await signUp(t.app);
  users.spare = await signUp(t.app);
  users.keyAdmin = await signUp(t.app);
  await ok(await users.sysAdmin.patch(`/api/admin/users/${users.keyAdmin.userId}`, { isSystemAdmin: true }));
  apiKey = (await ok(await users.keyAdmin.post('/api/me/mcp-key'), 201)).apiKey;

  const p = await freshProject();
  w.projectId = p.id;
  w.columnId = (
    await ok(await users.owner.post(`/api/projects/${p.id}/columns`, { name: 'Review' }), 201)
  ).id;
  w.ticketId = (await makeTicket(users.owner, p.id)).id;
  w.labelId = (await ok(await users.owner.post(`/api/projects/${p.id}/labels`, { name: 'shared' }), 201)).id;
  w.templateId = (
    await ok(await users.owner.post(`/api/projects/${p.id}/templates`, { name: 'shared' }), 201)
  ).id;
  w.commentId = (
    await ok(
      await users.projAdmin.post(`/api/projects/${p.id}/tickets/${w.ticketId}/comments`, { content: 'c' }),
      201,
    )
  ).id;
  w.sprintId = (await ok(await users.owner.post(`/api/projects/${p.id}/sprints`, {}), 201)).id;
  const att = await attach(p.id, w.ticketId);
  w.attachmentId = att.id;
  w.attachmentUrl = att.url;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('authorization matrix', () => {
  it('has an expectation for every route of the application, and no entry for a route that does not exist', () => {
    const routes = t.app.routeTable;
    expect(routes.length).toBeGreaterThan(80);
    const missing = [...new Set(routes.map(keyOf))].filter((k) => !EXPECT[k]);
    expect(missing, 'routes without an entry in EXPECT').toEqual([]);
    const known = new Set(routes.map(keyOf));
    expect(
      Object.keys(EXPECT).filter((k) => !known.has(k)),
      'stale entries',
    ).toEqual([]);
    expect(
      Object.keys(PREPARE).filter((k) => !known.has(k)),
      'stale PREPARE entries',
    ).toEqual([]);
  });

  it('answers every route, for every actor, with the status of the table and the stable error texts', async () => {
    const mismatches: string[] = [];
    for (const route of t.app.routeTable) {
      const key = keyOf(route);
      const row = EXPECT[key];
      if (!row) continue; // reported by the test above
      for (const [i, actor] of ACTORS.entries()) {
        const prep = (await PREPARE[key]?.(actor)) ?? {};
        const params = {
          projectId: w.projectId,
          columnId: w.columnId,
          ticketId: w.ticketId,
          labelId: w.labelId,
          templateId: w.templateId,
          commentId: w.commentId,
          sprintId: w.sprintId,
          attachmentId: w.attachmentId,
          userId: users.spare.userId,
          ...(prep.params ?? {}),
        };
        const req: Req = {
          path: prep.path ?? fill(route.url, params),
          json: route.method === 'HEAD' ? undefined : prep.json,
          multipart: route.method === 'HEAD' ? undefined : prep.multipart,
          headers: prep.headers,
        };
        const { status, text } = await send(actor, route.method, req);
        const where = `${route.method} ${route.url} as ${actor}`;
        if (status !== row[i]) {
          mismatches.push(`${where}: ${status} (expected ${row[i]}) ${text.slice(0, 160)}`);
          continue;
        }
        if (route.method === 'HEAD' || route.url === '/api/mcp') continue;
        // The denials carry the stable texts of DECISIONS 3 and 4.
        const error = errorOf(text);
        let want: string | undefined;
        if (status === 401) want = ERR.authRequired;
        else if (status === 403 && actor === 'apiKey' && (route.apiKey === false || route.auth === 'admin'))
          want = ERR.notWithApiKey;
        else if (status === 403 && route.auth === 'admin') want = ERR.adminRequired;
        else if (status === 404 && actor === 'nonMember')
          want =
            route.url.startsWith('/uploads/') || route.url === '/metrics'
              ? ERR.notFound
              : route.url.startsWith('/api/views/')
                ? ERR.viewNotFound
                : ERR.projectNotFound;
        if (want && error !== want)
          mismatches.push(`${where}: error ${JSON.stringify(error)} (expected ${want})`);
        if (status >= 500) mismatches.push(`${where}: server error`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);

  it('lets an API key act as a project member but refuses it on the key-less routes even for its own user', async () => {
    // The key of a plain member: project routes work, the account routes do not.
    const c = await signUp(t.app);
    await addMember(users.owner, w.projectId, c);
    const key = (await ok(await c.post('/api/me/mcp-key'), 201)).apiKey;
    const auth = { authorization: `Bearer ${key}` };
    const read = await fetch(`${baseUrl}/api/projects/${w.projectId}/tickets/${w.ticketId}`, {
      headers: auth,
    });
    expect(read.status).toBe(200);
    const pw = await fetch(`${baseUrl}/api/me/password`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ currentPassword: PASSWORD, newPassword: 'Another-horse-43' }),
    });
    expect(pw.status).toBe(403);
    expect((await pw.json()).error).toBe(ERR.notWithApiKey);
    const admin = await fetch(`${baseUrl}/api/admin/users`, { headers: auth });
    expect(admin.status).toBe(403);
  });
});
