/** Ticket templates through the tool server (decision 050): get_project names them, create_ticket uses one. */
import type { AddressInfo } from 'node:net';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { addMember, makeProject } from './helpers/board.js';
import { type Client, signUp, unique } from './helpers/factories.js';
import { connect, fails, ok, type Transport } from './helpers/mcp.js';

let t: TestApp;
let baseUrl: string;
let owner: Client;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await signUp(t.app); // the first account is the system administrator
  owner = await signUp(t.app, { username: unique('olivia') });
  apiKey = (await owner.post('/api/me/mcp-key')).json().apiKey;
});
afterAll(async () => t.close());

describe.each<Transport>(['http', 'stdio'])('templates over %s', (kind) => {
  let c: McpClient;
  let key: string;
  let mate: Client;
  beforeAll(async () => {
    c = await connect(kind, baseUrl, apiKey);
    const p = await makeProject(owner);
    key = p.key;
    mate = await signUp(t.app, { username: unique(`mate${kind}`) });
    await addMember(owner, p.id, mate);
    const bug = (await owner.post(`/api/projects/${p.id}/labels`, { name: 'bug' })).json();
    for (const body of [
      {
        name: 'Bug report',
        about: 'Something broke',
        type: 'Bug',
        title: 'Bug: ',
        description: '## Steps to reproduce',
        priority: 'High',
        labelIds: [bug.id],
        assigneeId: mate.userId,
        isDefault: true,
      },
      { name: 'Spike', type: 'Task', storyPoints: 2 },
    ]) {
      const res = await owner.post(`/api/projects/${p.id}/templates`, body);
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => c?.close());

  it('get_project names the templates and says what each presets', async () => {
    const r = await ok(c, 'get_project', { projectKey: key });
    expect(r.data.templates).toEqual(['Bug report', 'Spike']);
    expect(r.text).toContain(
      `- Bug report (default) - Something broke: bug; high; title "Bug: "; labels bug; assignee ${mate.username}; description`,
    );
    expect(r.text).toContain('- Spike: task; 2 points');
  });

  it('create_ticket with a template by partial name fills what the call leaves out; the call wins', async () => {
    // The title is required (SPEC, decision 058): the template's "Bug: " is a pattern to follow.
    const filled = await ok(c, 'create_ticket', { projectKey: key, template: 'bug', title: 'Bug: crash' });
    expect(filled.data).toMatchObject({
      title: 'Bug: crash',
      type: 'bug',
      priority: 'high',
      labels: ['bug'],
      assignee: mate.username,
      description: '## Steps to reproduce',
    });
    expect(filled.text).toContain('Resolved: template "bug" → Bug report');

    const mine = await ok(c, 'create_ticket', {
      projectKey: key,
      template: 'Bug report',
      title: 'Bug: login fails',
      priority: 'low',
      labels: [],
      assignee: null,
    });
    expect(mine.data).toMatchObject({
      title: 'Bug: login fails',
      type: 'bug',
      priority: 'low',
      labels: [],
      assignee: null,
    });
    // Without a template the defaults stay task and medium.
    const plain = await ok(c, 'create_ticket', { projectKey: key, title: 'Plain' });
    expect(plain.data).toMatchObject({ type: 'task', priority: 'medium' });
  });

  it('names what is missing: an unknown template, or no title (required, with a template too)', async () => {
    expect(await fails(c, 'create_ticket', { projectKey: key, template: 'Epic plan', title: 'x' })).toBe(
      'Template not found: Epic plan (known: Bug report, Spike)',
    );
    for (const args of [
      { projectKey: key, template: 'Bug report' },
      { projectKey: key, template: 'Spike' },
      { projectKey: key },
    ])
      expect(await fails(c, 'create_ticket', args)).toBe(
        'Invalid arguments for create_ticket: title: required',
      );
  });
});
