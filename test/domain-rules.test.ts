import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createColumn, listColumns } from '../src/domain/columns.js';
import { type Ctx, requestCtx } from '../src/domain/context.js';
import { createProject } from '../src/domain/projects.js';
import {
  completeSprint,
  createSprint,
  doneColumnIdsOf,
  startSprint,
  updateSprintSettings,
} from '../src/domain/sprints.js';
import { createTicket } from '../src/domain/tickets.js';
import { doneColumnIds } from '../src/shared/sprints.js';
import { parseTicketKey } from '../src/shared/tickets.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { signUp } from './helpers/factories.js';

/**
 * Domain rules called directly, on a real database (both in CI), without HTTP: the rules the routes,
 * the MCP tools and the web app share.
 */
describe('the ticket-key rule', () => {
  it('reads any case and leading zeros, and normalises the key', () => {
    expect(parseTicketKey('web-012')).toEqual({ projectKey: 'WEB', number: 12, key: 'WEB-12' });
    expect(parseTicketKey(' A1-7 ')).toEqual({ projectKey: 'A1', number: 7, key: 'A1-7' });
  });

  it('refuses what is not a key', () => {
    for (const bad of ['WEB', 'W-1', 'WEBWEBWEBWE-1', 'WEB-', 'WEB-1x', 'WEB-1234567890', '-12', 'WEB 12']) {
      expect(parseTicketKey(bad), bad).toBeNull();
    }
  });
});

describe('the done-columns rule', () => {
  it('takes the chosen columns that still exist, else the last column', () => {
    expect(doneColumnIds(['a', 'b', 'c'], ['b'])).toEqual(['b']);
    expect(doneColumnIds(['a', 'b', 'c'], ['gone', 'a'])).toEqual(['a']);
    expect(doneColumnIds(['a', 'b', 'c'], ['gone'])).toEqual(['c']);
    expect(doneColumnIds(['a', 'b', 'c'], [])).toEqual(['c']);
    expect(doneColumnIds([], ['a'])).toEqual([]);
  });
});

describe('sprint completion by the domain', () => {
  let t: TestApp;
  let ctx: Ctx;
  beforeAll(async () => {
    t = await createTestApp();
    const owner = await signUp(t.app);
    ctx = requestCtx(t.app.services, null);
    ctx.actor = { userId: owner.userId, isSystemAdmin: false, via: 'session', sessionId: null };
  });
  afterAll(async () => t.close());

  it('counts tickets in any chosen done column as complete, including a column added after Done', async () => {
    const project = await createProject(ctx, { name: 'Rules', key: 'RULES' });
    const columns = await listColumns(ctx, project.id);
    const done = columns.find((c) => c.name === 'Done') ?? columns[columns.length - 1];
    const shipped = await createColumn(ctx, project.id, { name: 'Shipped' });
    // Without a choice only the last column (Shipped) counts as done.
    expect(await doneColumnIdsOf(t.app.services.db.kysely, project.id)).toEqual([shipped.id]);
    await updateSprintSettings(ctx, project.id, { doneColumnIds: [done.id, shipped.id] });
    expect(new Set(await doneColumnIdsOf(t.app.services.db.kysely, project.id))).toEqual(
      new Set([done.id, shipped.id]),
    );

    const sprint = await createSprint(ctx, project.id, { name: 'One' });
    const inDone = await createTicket(ctx, project.id, {
      title: 'finished',
      columnId: done.id,
      sprintId: sprint.id,
      storyPoints: 3,
    });
    await createTicket(ctx, project.id, { title: 'shipped', columnId: shipped.id, sprintId: sprint.id });
    await createTicket(ctx, project.id, { title: 'open', columnId: columns[0].id, sprintId: sprint.id });
    await startSprint(ctx, project.id, sprint.id, null);
    const result = await completeSprint(ctx, project.id, sprint.id, { incompleteAction: 'moveToBacklog' });
    expect(result.completedTicketCount).toBe(2);
    expect(result.incompleteTicketCount).toBe(1);
    expect(result.completedStoryPoints).toBe(3);
    expect(inDone.sprintId).toBe(sprint.id);
  });
});
