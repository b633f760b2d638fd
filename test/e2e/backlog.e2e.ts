import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  openPage,
  pickFilter,
  type Server,
  screenshot,
  settled,
  startSuite,
  stopSuite,
  unique,
  uniqueKey,
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;

type Client = Awaited<ReturnType<typeof ApiClient.signUp>>;

interface Seeded {
  id: string;
  key: string;
  columns: { id: string; name: string }[];
  labels: Record<string, string>;
  member: Client;
}

const open = (client: ApiClient, theme: 'light' | 'dark' = 'light') =>
  openPage(browser, base, client, { theme });

/** A project of `owner` with a second member, two labels and the default columns. */
async function seedProject(owner: Client, name = 'Checkout Revamp'): Promise<Seeded> {
  const key = uniqueKey('B');
  const project = await owner.req('POST', '/api/projects', { name, key });
  const member = await ApiClient.signUp(base, unique('sam'), 'Sam Lee');
  await owner.req('POST', `/api/projects/${project.id}/members`, { userId: member.userId });
  const columns = await owner.req('GET', `/api/projects/${project.id}/columns`);
  const labels: Record<string, string> = {};
  for (const [n, color] of [
    ['frontend', '#2563EB'],
    ['backend', '#16A34A'],
  ]) {
    const l = await owner.req('POST', `/api/projects/${project.id}/labels`, { name: n, color });
    labels[n] = l.id;
  }
  return { id: project.id, key: project.key, columns, labels, member };
}

const ticket = (c: ApiClient, p: Seeded, body: Record<string, unknown>) =>
  c.req('POST', `/api/projects/${p.id}/tickets`, body) as Promise<{ id: string; key: string }>;
const getTicket = (c: ApiClient, p: Seeded, ref: string) =>
  c.req('GET', `/api/projects/${p.id}/tickets/${ref}`);
const sprint = (c: ApiClient, p: Seeded, body: Record<string, unknown> = {}) =>
  c.req('POST', `/api/projects/${p.id}/sprints`, body) as Promise<{ id: string; name: string }>;
const sprints = (c: ApiClient, p: Seeded) => c.req('GET', `/api/projects/${p.id}/sprints`) as Promise<any[]>;
const col = (p: Seeded, name: string) => p.columns.find((c) => c.name === name)!.id;

const section = (page: Page, name: string) =>
  page.locator(`[data-testid="plan-section"][aria-label="${name}"]`);
const row = (page: Page, key: string) => page.locator(`[data-testid="backlog-row"][data-key="${key}"]`);
const keysIn = (page: Page, name: string) =>
  section(page, name)
    .getByTestId('backlog-row')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-key')));

/** Waits until the page's event stream for `path` is open, so no event of the test can be missed. */
async function streamOpen(page: Page, id: string) {
  await page.waitForFunction(
    (p) => (document.documentElement.dataset.streams ?? '').split(' ').includes(p),
    `/api/projects/${id}/events`,
  );
}

async function gotoBacklog(page: Page, p: Seeded) {
  await page.goto(`${base}/projects/${p.key}/backlog`);
  await section(page, 'Backlog').waitFor();
  await streamOpen(page, p.id);
}

/** Drags with the mouse in small steps, as a person would. */
async function drag(page: Page, from: Locator, to: Locator) {
  const a = (await from.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 12, a.y + a.height / 2 + 6, { steps: 4 });
  const b = (await to.boundingBox())!;
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.move(b.x + b.width / 2 + 2, b.y + b.height / 2 + 2, { steps: 2 });
  await page.mouse.up();
}

/**
 * Presses an arrow key during a keyboard drag until dnd-kit announces the wanted section: the
 * sensor starts listening for keys a moment after the pick-up, so an early press may be lost. The
 * target is the first or last section, so extra presses cannot overshoot it.
 */
async function arrowUntil(page: Page, key: 'ArrowUp' | 'ArrowDown', announcement: string) {
  const live = page.locator('[id^="DndLiveRegion"]');
  await expect
    .poll(async () => {
      if ((await live.textContent()) !== announcement) await page.keyboard.press(key);
      return live.textContent();
    })
    .toBe(announcement);
}

const day = (offset = 0) => {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + offset);
  return d.toISOString().slice(0, 10);
};

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
});

afterAll(() => stopSuite({ server, browser }));

describe('backlog', () => {
  it('lists the backlog and the open sprints, with filters, sorting and point totals against the budget', async () => {
    const owner = await ApiClient.signUp(base, unique('priya'), 'Priya Patel');
    const p = await seedProject(owner);
    const planned = await sprint(owner, p, { name: 'Sprint Alpha', budget: 10 });
    const t1 = await ticket(owner, p, {
      title: 'Redesign the cart page',
      type: 'Story',
      priority: 'High',
      storyPoints: 5,
      labelIds: [p.labels.frontend],
      assigneeId: p.member.userId,
    });
    const t2 = await ticket(owner, p, {
      title: 'Totals round the wrong way',
      type: 'Bug',
      priority: 'Critical',
      storyPoints: 3,
      labelIds: [p.labels.backend],
    });
    const t3 = await ticket(owner, p, {
      title: 'Update the icons',
      type: 'Task',
      priority: 'Low',
      storyPoints: 8,
    });
    const t4 = await ticket(owner, p, {
      title: 'Coupon field rejects lower case',
      type: 'Bug',
      storyPoints: 2,
      sprintId: planned.id,
    });
    // A ticket kept in a completed sprint is no longer planned: it is not listed.
    const old = await sprint(owner, p, { name: 'Old sprint' });
    const kept = await ticket(owner, p, { title: 'Kept with the old sprint', sprintId: old.id });
    await owner.req('POST', `/api/projects/${p.id}/sprints/${old.id}/start`, {});
    await owner.req('POST', `/api/projects/${p.id}/sprints/${old.id}/complete`, {
      incompleteAction: 'keepInSprint',
    });

    const page = await open(owner);
    await gotoBacklog(page, p);
    expect(await keysIn(page, 'Backlog')).toEqual([t1.key, t2.key, t3.key]);
    expect(await keysIn(page, 'Sprint Alpha')).toEqual([t4.key]);
    expect(await row(page, kept.key).count()).toBe(0);
    expect(await section(page, 'Old sprint').count()).toBe(0);
    expect(await section(page, 'Sprint Alpha').getByTestId('section-points').textContent()).toBe(
      '2 / 10 pts',
    );
    expect(await section(page, 'Backlog').getByTestId('section-points').textContent()).toBe('16 pts');

    await pickFilter(page, 'Type', ['Bug']);
    expect(await keysIn(page, 'Backlog')).toEqual([t2.key]);
    expect(await keysIn(page, 'Sprint Alpha')).toEqual([t4.key]);
    expect(await section(page, 'Backlog').getByTestId('section-count').textContent()).toBe('1 of 3 tickets');
    await page.getByRole('button', { name: 'Clear filters' }).click();

    await pickFilter(page, 'Priority', ['Critical']);
    expect(await keysIn(page, 'Backlog')).toEqual([t2.key]);
    expect(await keysIn(page, 'Sprint Alpha')).toEqual([]);
    await pickFilter(page, 'Priority', []);

    await pickFilter(page, 'Assignee', ['Sam Lee']);
    expect(await keysIn(page, 'Backlog')).toEqual([t1.key]);
    await pickFilter(page, 'Assignee', ['Unassigned']);
    expect(await keysIn(page, 'Backlog')).toEqual([t2.key, t3.key]);
    await pickFilter(page, 'Assignee', []);

    await pickFilter(page, 'Label', ['backend']);
    expect(await keysIn(page, 'Backlog')).toEqual([t2.key]);
    await pickFilter(page, 'Label', []);

    await page.getByLabel('Search tickets').fill('icons');
    expect(await keysIn(page, 'Backlog')).toEqual([t3.key]);
    await page.getByLabel('Search tickets').fill('');
    expect(await keysIn(page, 'Backlog')).toEqual([t1.key, t2.key, t3.key]);

    // Sorting: story points (largest first), then the other way round; priority (highest first); number.
    await page.getByLabel('Sort by').selectOption('points');
    expect(await keysIn(page, 'Backlog')).toEqual([t3.key, t1.key, t2.key]);
    await page.getByRole('button', { name: /^Sort descending/ }).click();
    expect(await keysIn(page, 'Backlog')).toEqual([t2.key, t1.key, t3.key]);
    await page.getByLabel('Sort by').selectOption('priority');
    expect(await keysIn(page, 'Backlog')).toEqual([t2.key, t1.key, t3.key]);
    await page.getByRole('button', { name: /^Sort descending/ }).click();
    expect(await keysIn(page, 'Backlog')).toEqual([t3.key, t1.key, t2.key]);
    await page.getByLabel('Sort by').selectOption('number');
    await page.getByRole('button', { name: /^Sort ascending/ }).click();
    expect(await keysIn(page, 'Backlog')).toEqual([t3.key, t2.key, t1.key]);
    // Recently updated first.
    await owner.req('PATCH', `/api/projects/${p.id}/tickets/${t2.id}`, {
      title: 'Totals round the wrong way!',
    });
    await page.getByLabel('Sort by').selectOption('updated');
    await expect.poll(() => keysIn(page, 'Backlog')).toEqual([t2.key, t3.key, t1.key]);
  });

  it('edits several tickets at once, moves them, and deletes them after a confirmation', async () => {
    const owner = await ApiClient.signUp(base, unique('priya'), 'Priya Patel');
    const p = await seedProject(owner);
    const s = await sprint(owner, p, { name: 'Sprint Beta' });
    const t1 = await ticket(owner, p, { title: 'First', labelIds: [p.labels.backend] });
    const t2 = await ticket(owner, p, { title: 'Second' });
    const t3 = await ticket(owner, p, { title: 'Third' });

    const page = await open(owner);
    await gotoBacklog(page, p);
    await page.getByLabel(`Select ${t1.key}`).check();
    await page.getByLabel(`Select ${t2.key}`).check();
    expect(await page.getByTestId('selection-count').textContent()).toBe('2 selected');
    await page.getByRole('button', { name: 'Edit…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit 2 tickets' });
    await dialog.getByLabel('Column').selectOption({ label: 'In Progress' });
    await dialog.getByLabel('Assignee').selectOption({ label: 'Sam Lee' });
    await dialog.getByLabel('Priority').selectOption('High');
    await dialog.getByLabel('Type').selectOption('Bug');
    await dialog.getByLabel('Story points').selectOption('5');
    await dialog.getByLabel('Label change').selectOption('add');
    await dialog.getByLabel('frontend').check();
    await dialog.getByRole('button', { name: 'Apply to 2' }).click();
    await dialog.waitFor({ state: 'detached' });
    for (const t of [t1, t2]) {
      const got = await getTicket(owner, p, t.id);
      expect(got.column.name).toBe('In Progress');
      expect(got.assigneeId).toBe(p.member.userId);
      expect(got.priority).toBe('High');
      expect(got.type).toBe('Bug');
      expect(got.storyPoints).toBe(5);
    }
    // Labels were added to each ticket's own set.
    expect((await getTicket(owner, p, t1.id)).labels.map((l: any) => l.name).sort()).toEqual([
      'backend',
      'frontend',
    ]);
    expect((await getTicket(owner, p, t2.id)).labels.map((l: any) => l.name)).toEqual(['frontend']);
    const untouched = await getTicket(owner, p, t3.id);
    expect([untouched.column.name, untouched.priority, untouched.type]).toEqual(['To Do', 'Medium', 'Task']);
    await expect.poll(() => row(page, t1.key).getByTestId('row-column').textContent()).toBe('In Progress');

    // Move the selection with the selection bar.
    await page.getByLabel('Move selected tickets to').selectOption({ label: 'Sprint Beta' });
    await expect.poll(async () => (await getTicket(owner, p, t1.id)).sprintId).toBe(s.id);
    expect((await getTicket(owner, p, t2.id)).sprintId).toBe(s.id);
    await expect.poll(() => keysIn(page, 'Sprint Beta')).toEqual([t1.key, t2.key]);

    // Delete them: the dialog asks first.
    await page.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 2 tickets?' });
    await confirm.getByText(`${t1.key}, ${t2.key} will be deleted`).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await getTicket(owner, p, t1.id)).id).toBe(t1.id);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete 2 tickets' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    for (const t of [t1, t2]) await expect(getTicket(owner, p, t.id)).rejects.toThrow(/404/);
    expect((await getTicket(owner, p, t3.id)).id).toBe(t3.id);
    expect(await keysIn(page, 'Sprint Beta')).toEqual([]);
    expect(await page.getByTestId('selection-count').count()).toBe(0);
  });

  it('moves tickets between the backlog and a sprint by drag and drop and with the ticket menu', async () => {
    const owner = await ApiClient.signUp(base, unique('priya'), 'Priya Patel');
    const p = await seedProject(owner);
    const s = await sprint(owner, p, { name: 'Sprint Gamma' });
    const t1 = await ticket(owner, p, { title: 'Drag me', storyPoints: 3 });
    const t2 = await ticket(owner, p, { title: 'Use the menu', storyPoints: 5 });
    const t3 = await ticket(owner, p, { title: 'Third one' });

    const page = await open(owner);
    await gotoBacklog(page, p);
    await drag(page, row(page, t1.key), section(page, 'Sprint Gamma'));
    await expect.poll(async () => (await getTicket(owner, p, t1.id)).sprintId).toBe(s.id);
    await expect.poll(() => keysIn(page, 'Sprint Gamma')).toEqual([t1.key]);
    expect(await section(page, 'Sprint Gamma').getByTestId('section-points').textContent()).toBe('3 pts');

    // The menu, by keyboard (once the refetches after the drop are done: a row re-rendered between
    // the focus and the key would lose the focus).
    await settled(page);
    await page.getByRole('button', { name: `Actions for ${t2.key}` }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Move to Sprint Gamma' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await getTicket(owner, p, t2.id)).sprintId).toBe(s.id);
    await expect.poll(() => keysIn(page, 'Sprint Gamma')).toEqual([t1.key, t2.key]);

    await page.getByRole('button', { name: `Actions for ${t1.key}` }).click();
    await page.getByRole('menuitem', { name: 'Move to backlog' }).click();
    await expect.poll(async () => (await getTicket(owner, p, t1.id)).sprintId).toBeNull();

    // Keyboard dragging: Space picks the ticket up by its handle, the arrows choose the section.
    const live = page.locator('[id^="DndLiveRegion"]');
    await page.waitForFunction(() => document.documentElement.dataset.busy === '0');
    await page.getByRole('button', { name: `Move ${t1.key}` }).focus();
    await page.keyboard.press('Space');
    await expect
      .poll(() => live.textContent())
      .toMatch(new RegExp(`^(Picked up ${t1.key}|Over Backlog)\\.$`));
    await arrowUntil(page, 'ArrowUp', 'Over Sprint Gamma.');
    await page.keyboard.press('Space');
    await expect.poll(async () => (await getTicket(owner, p, t1.id)).sprintId).toBe(s.id);
    await expect.poll(() => keysIn(page, 'Sprint Gamma')).toEqual([t1.key, t2.key]);
    await page.waitForFunction(() => document.documentElement.dataset.busy === '0');
    await page.getByRole('button', { name: `Move ${t1.key}` }).focus();
    await page.keyboard.press('Space');
    await expect
      .poll(() => live.textContent())
      .toMatch(new RegExp(`^(Picked up ${t1.key}|Over Sprint Gamma)\\.$`));
    await arrowUntil(page, 'ArrowDown', 'Over Backlog.');
    await page.keyboard.press('Escape');
    await expect.poll(() => live.textContent()).toBe('Move cancelled.');
    expect((await getTicket(owner, p, t1.id)).sprintId).toBe(s.id);
    await page.getByRole('button', { name: `Move ${t1.key}` }).focus();
    await page.keyboard.press('Space');
    await expect
      .poll(() => live.textContent())
      .toMatch(new RegExp(`^(Picked up ${t1.key}|Over Sprint Gamma)\\.$`));
    await arrowUntil(page, 'ArrowDown', 'Over Backlog.');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await getTicket(owner, p, t1.id)).sprintId).toBeNull();

    // Dragging a selected ticket takes the whole selection along.
    await page.getByLabel(`Select ${t1.key}`).check();
    await page.getByLabel(`Select ${t3.key}`).check();
    await drag(page, row(page, t3.key), section(page, 'Sprint Gamma'));
    await expect.poll(async () => (await getTicket(owner, p, t1.id)).sprintId).toBe(s.id);
    expect((await getTicket(owner, p, t3.id)).sprintId).toBe(s.id);
    await expect.poll(() => keysIn(page, 'Backlog')).toEqual([]);
  });

  it('creates, edits, starts, extends and deletes sprints', async () => {
    const owner = await ApiClient.signUp(base, unique('priya'), 'Priya Patel');
    const p = await seedProject(owner);
    await owner.req('PATCH', `/api/projects/${p.id}/sprints/settings`, { defaultSprintDuration: 3 });
    const page = await open(owner);
    await gotoBacklog(page, p);

    await page.getByRole('button', { name: 'Create sprint' }).click();
    let dialog = page.getByRole('dialog', { name: 'Create sprint' });
    await dialog.getByLabel('Sprint name').fill('Checkout');
    await dialog.getByLabel('Goal').fill('Pay in one step');
    await dialog.getByLabel('Budget (story points)').fill('13');
    await dialog.getByRole('button', { name: 'Create sprint' }).click();
    await section(page, 'Checkout').waitFor();
    let list = await sprints(owner, p);
    const checkout = list.find((s) => s.name === 'Checkout');
    expect([checkout.goal, checkout.budget, checkout.status]).toEqual(['Pay in one step', 13, 'planning']);
    expect(await section(page, 'Checkout').getByTestId('section-points').textContent()).toBe('0 / 13 pts');
    expect(await section(page, 'Checkout').getByTestId('sprint-goal').textContent()).toBe('Pay in one step');

    // Without a name the server names it.
    await page.getByRole('button', { name: 'Create sprint' }).click();
    await page
      .getByRole('dialog', { name: 'Create sprint' })
      .getByRole('button', { name: 'Create sprint' })
      .click();
    await expect.poll(async () => (await sprints(owner, p)).length).toBe(2);
    list = await sprints(owner, p);
    const unnamed = list.find((s) => s.id !== checkout.id);
    expect(unnamed.name).toMatch(/^Sprint \d+$/);
    await section(page, unnamed.name).waitFor();

    // Edit: name, goal, dates, budget.
    await page.getByRole('button', { name: `More actions for ${unnamed.name}` }).click();
    await page.getByRole('menuitem', { name: 'Edit sprint' }).click();
    dialog = page.getByRole('dialog', { name: `Edit ${unnamed.name}` });
    await dialog.getByLabel('Sprint name').fill('Payments');
    await dialog.getByLabel('Goal').fill('Cards and wallets');
    await dialog.getByLabel('Start date').fill('2026-12-01');
    await dialog.getByLabel('End date').fill('2026-12-10');
    await dialog.getByLabel('Budget (story points)').fill('20');
    await dialog.getByRole('button', { name: 'Save sprint' }).click();
    await section(page, 'Payments').waitFor();
    const payments = (await sprints(owner, p)).find((s) => s.id === unnamed.id);
    expect([payments.name, payments.goal, payments.startDate, payments.endDate, payments.budget]).toEqual([
      'Payments',
      'Cards and wallets',
      '2026-12-01T00:00:00.000Z',
      '2026-12-10T00:00:00.000Z',
      20,
    ]);
    // The API's own words when it refuses: the end before the start.
    await page.getByRole('button', { name: 'More actions for Payments' }).click();
    await page.getByRole('menuitem', { name: 'Edit sprint' }).click();
    dialog = page.getByRole('dialog', { name: 'Edit Payments' });
    await dialog.getByLabel('End date').fill('2026-11-20');
    await dialog.getByRole('button', { name: 'Save sprint' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Must not be before startDate' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // Delete a planning sprint: its ticket goes back to the backlog.
    const t = await ticket(owner, p, { title: 'Planned for payments', sprintId: payments.id });
    await row(page, t.key).waitFor();
    await page.getByRole('button', { name: 'More actions for Payments' }).click();
    await page.getByRole('menuitem', { name: 'Delete sprint' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Payments?' });
    await confirm.getByText('Its ticket goes back to the backlog.').waitFor();
    await confirm.getByRole('button', { name: 'Delete sprint' }).click();
    await section(page, 'Payments').waitFor({ state: 'detached' });
    expect((await sprints(owner, p)).map((s) => s.id)).toEqual([checkout.id]);
    expect((await getTicket(owner, p, t.id)).sprintId).toBeNull();
    await expect.poll(() => keysIn(page, 'Backlog')).toEqual([t.key]);

    // Start: the dates are today and today plus the default length of the sprint settings (3 weeks).
    await page.getByRole('button', { name: 'Start Checkout' }).click();
    dialog = page.getByRole('dialog', { name: 'Start Checkout' });
    expect(await dialog.getByLabel('Start date').inputValue()).toBe(day(0));
    expect(await dialog.getByLabel('End date').inputValue()).toBe(day(21));
    await dialog.getByText('Default length: 3 weeks').waitFor();
    await dialog.getByRole('button', { name: 'Start sprint' }).click();
    await dialog.waitFor({ state: 'detached' });
    let started = (await sprints(owner, p)).find((s) => s.id === checkout.id);
    expect([started.status, started.startDate, started.endDate]).toEqual([
      'active',
      `${day(0)}T00:00:00.000Z`,
      `${day(21)}T00:00:00.000Z`,
    ]);
    await section(page, 'Checkout').getByText('Active', { exact: true }).waitFor();

    // Another planning sprint cannot start while one is active.
    await sprint(owner, p, { name: 'Next up' });
    await section(page, 'Next up').waitFor();
    expect(await page.getByRole('button', { name: 'Start Next up' }).isDisabled()).toBe(true);

    // Extend: a date before the start is refused in the API's words, then a later one is saved.
    await page.getByRole('button', { name: 'Extend Checkout' }).click();
    dialog = page.getByRole('dialog', { name: 'Extend Checkout' });
    expect(await dialog.getByLabel('New end date').inputValue()).toBe(day(28));
    await dialog.getByLabel('New end date').fill(day(-5));
    await dialog.getByRole('button', { name: 'Extend sprint' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Must not be before the start date' }).waitFor();
    await dialog.getByLabel('New end date').fill(day(30));
    await dialog.getByRole('button', { name: 'Extend sprint' }).click();
    await dialog.waitFor({ state: 'detached' });
    started = (await sprints(owner, p)).find((s) => s.id === checkout.id);
    expect(started.endDate).toBe(`${day(30)}T00:00:00.000Z`);
  });

  it('completes sprints, sending incomplete tickets to the next sprint, to the backlog, or keeping them', async () => {
    const owner = await ApiClient.signUp(base, unique('priya'), 'Priya Patel');
    const p = await seedProject(owner);
    const a = await sprint(owner, p, { name: 'Sprint A', budget: 10 });
    const b = await sprint(owner, p, { name: 'Sprint B' });
    const done = await ticket(owner, p, {
      title: 'Done already',
      sprintId: a.id,
      storyPoints: 5,
      columnId: col(p, 'Done'),
    });
    const todo = await ticket(owner, p, { title: 'Not started', sprintId: a.id, storyPoints: 3 });
    const doing = await ticket(owner, p, {
      title: 'Half way',
      sprintId: a.id,
      storyPoints: 2,
      columnId: col(p, 'In Progress'),
    });
    await owner.req('POST', `/api/projects/${p.id}/sprints/${a.id}/start`, {});

    const page = await open(owner);
    await gotoBacklog(page, p);
    await page.getByRole('button', { name: 'Complete Sprint A' }).click();
    let dialog = page.getByRole('dialog', { name: 'Complete Sprint A' });
    expect(await dialog.getByTestId('complete-stat').textContent()).toBe('Complete1 ticket5 story points');
    expect(await dialog.getByTestId('incomplete-stat').textContent()).toBe(
      'Incomplete2 tickets5 story points',
    );
    // The project has no automatic carry-over: the backlog is the default.
    expect(await dialog.getByLabel('Move to the backlog').isChecked()).toBe(true);
    await dialog.getByLabel('Move to the next sprint').check();
    expect(await dialog.getByLabel('Next sprint', { exact: true }).inputValue()).toBe(b.id);
    await dialog.getByRole('button', { name: 'Complete sprint' }).click();
    await dialog.waitFor({ state: 'detached' });
    for (const t of [todo, doing]) {
      const got = await getTicket(owner, p, t.id);
      expect([got.sprintId, got.isCarriedOver, got.carriedOverCount, got.carriedFromSprintId]).toEqual([
        b.id,
        true,
        1,
        a.id,
      ]);
    }
    expect((await getTicket(owner, p, done.id)).sprintId).toBe(a.id);
    await section(page, 'Sprint A').waitFor({ state: 'detached' });
    await expect.poll(() => keysIn(page, 'Sprint B')).toEqual([todo.key, doing.key]);
    expect(await row(page, todo.key).getByTestId('carried-over').textContent()).toContain('↻1');
    expect(await row(page, done.key).count()).toBe(0);

    // The board's card carries the same mark.
    await page.goto(`${base}/projects/${p.key}`);
    await page.getByLabel('Sprint', { exact: true }).selectOption({ label: 'Sprint B' });
    await page
      .locator(`[data-testid="card"][data-key="${todo.key}"]`)
      .getByTestId('card-carried-over')
      .waitFor();

    // Second: to the backlog.
    await owner.req('POST', `/api/projects/${p.id}/sprints/${b.id}/start`, {});
    // The board's header leads to the backlog.
    await page.getByRole('link', { name: 'Backlog', exact: true }).click();
    await section(page, 'Sprint B').getByText('Active', { exact: true }).waitFor();
    await streamOpen(page, p.id);
    await page.getByRole('button', { name: 'Complete Sprint B' }).click();
    dialog = page.getByRole('dialog', { name: 'Complete Sprint B' });
    expect(await dialog.getByTestId('incomplete-stat').textContent()).toBe(
      'Incomplete2 tickets5 story points',
    );
    await dialog.getByLabel('Move to the backlog').check();
    await dialog.getByRole('button', { name: 'Complete sprint' }).click();
    await dialog.waitFor({ state: 'detached' });
    for (const t of [todo, doing]) expect((await getTicket(owner, p, t.id)).sprintId).toBeNull();
    await expect.poll(() => keysIn(page, 'Backlog')).toEqual([todo.key, doing.key]);
    expect((await sprints(owner, p)).find((s) => s.id === b.id).status).toBe('completed');

    // Third: keep them in the completed sprint.
    const c = await sprint(owner, p, { name: 'Sprint C' });
    await owner.req('PATCH', `/api/projects/${p.id}/tickets`, {
      ticketIds: [todo.id, doing.id],
      updates: { sprintId: c.id },
    });
    await owner.req('POST', `/api/projects/${p.id}/sprints/${c.id}/start`, {});
    await expect.poll(() => keysIn(page, 'Sprint C')).toEqual([todo.key, doing.key]);
    await page.getByRole('button', { name: 'Complete Sprint C' }).click();
    dialog = page.getByRole('dialog', { name: 'Complete Sprint C' });
    await dialog.getByLabel('Keep in this sprint').check();
    await dialog.getByRole('button', { name: 'Complete sprint' }).click();
    await dialog.waitFor({ state: 'detached' });
    for (const t of [todo, doing]) expect((await getTicket(owner, p, t.id)).sprintId).toBe(c.id);
    expect((await sprints(owner, p)).find((s) => s.id === c.id).status).toBe('completed');
    await expect.poll(() => row(page, todo.key).count()).toBe(0);

    // Fourth: no planning sprint is left, so "next sprint" creates one.
    const d = await sprint(owner, p, { name: 'Sprint D' });
    const late = await ticket(owner, p, { title: 'Still open', sprintId: d.id, storyPoints: 8 });
    await owner.req('POST', `/api/projects/${p.id}/sprints/${d.id}/start`, {});
    await row(page, late.key).waitFor();
    await page.getByRole('button', { name: 'Complete Sprint D' }).click();
    dialog = page.getByRole('dialog', { name: 'Complete Sprint D' });
    await dialog.getByLabel('Move to the next sprint').check();
    expect(await dialog.getByLabel('Next sprint', { exact: true }).inputValue()).toBe('__new');
    await dialog.getByRole('button', { name: 'Complete sprint' }).click();
    await dialog.waitFor({ state: 'detached' });
    const fresh = (await sprints(owner, p)).filter((s) => s.status === 'planning');
    expect(fresh).toHaveLength(1);
    expect(fresh[0].name).toMatch(/^Sprint \d+$/);
    const moved = await getTicket(owner, p, late.id);
    expect([moved.sprintId, moved.carriedOverCount]).toEqual([fresh[0].id, 1]);
    await expect.poll(() => keysIn(page, fresh[0].name)).toEqual([late.key]);
  });

  it("shows another member's changes as they happen", async () => {
    const owner = await ApiClient.signUp(base, unique('priya'), 'Priya Patel');
    const p = await seedProject(owner);
    const page = await open(owner);
    await gotoBacklog(page, p);
    const other = p.member;
    const t = await ticket(other, p, { title: 'Filed by Sam' });
    await row(page, t.key).waitFor();
    const s = await sprint(other, p, { name: 'Sams sprint', budget: 5 });
    await section(page, 'Sams sprint').waitFor();
    await other.req('PATCH', `/api/projects/${p.id}/tickets/${t.id}`, { sprintId: s.id, storyPoints: 8 });
    await expect.poll(() => keysIn(page, 'Sams sprint')).toEqual([t.key]);
    await expect
      .poll(() => section(page, 'Sams sprint').getByTestId('section-points').textContent())
      .toBe('8 / 5 pts');
    await other.req('POST', `/api/projects/${p.id}/sprints/${s.id}/start`, {});
    await section(page, 'Sams sprint').getByText('Active', { exact: true }).waitFor();
    await other.req('DELETE', `/api/projects/${p.id}/tickets/${t.id}`);
    await row(page, t.key).waitFor({ state: 'detached' });
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`looks right in the ${theme} theme`, async () => {
      const owner = await ApiClient.signUp(base, unique('priya'), 'Priya Patel');
      const p = await seedProject(owner, 'Web Storefront');
      const ada = p.member;
      const s0 = await sprint(owner, p, { name: 'Sprint 1' });
      const s1 = await sprint(owner, p, {
        name: 'Sprint 2',
        goal: 'One-step checkout behind a flag',
        budget: 21,
      });
      const s2 = await sprint(owner, p, { name: 'Sprint 3', goal: 'Wallet payments', budget: 8 });
      const mk = (title: string, extra: Record<string, unknown>) => ticket(owner, p, { title, ...extra });
      await mk('Carry the basket between devices', {
        sprintId: s0.id,
        type: 'Story',
        storyPoints: 5,
        priority: 'High',
        labelIds: [p.labels.frontend],
      });
      await mk('Address form loses focus on error', {
        sprintId: s0.id,
        type: 'Bug',
        storyPoints: 2,
        columnId: col(p, 'In Progress'),
        assigneeId: ada.userId,
      });
      await mk('Set up the payments sandbox', {
        sprintId: s0.id,
        type: 'Task',
        storyPoints: 3,
        columnId: col(p, 'Done'),
      });
      await owner.req('POST', `/api/projects/${p.id}/sprints/${s0.id}/start`, {});
      await owner.req('POST', `/api/projects/${p.id}/sprints/${s0.id}/complete`, {
        incompleteAction: 'moveToNextSprint',
        nextSprintId: s1.id,
      });
      await mk('One-step checkout page', {
        sprintId: s1.id,
        type: 'Story',
        storyPoints: 8,
        priority: 'Highest',
        labelIds: [p.labels.frontend],
        assigneeId: ada.userId,
      });
      await mk('Price rounding in the totals', {
        sprintId: s1.id,
        type: 'Bug',
        storyPoints: 3,
        priority: 'Critical',
        labelIds: [p.labels.backend],
        columnId: col(p, 'Done'),
      });
      await owner.req('POST', `/api/projects/${p.id}/sprints/${s1.id}/start`, {});
      await mk('Apple Pay and Google Pay', {
        sprintId: s2.id,
        type: 'Epic',
        storyPoints: 13,
        labelIds: [p.labels.backend, p.labels.frontend],
      });
      await mk('Saved cards', { sprintId: s2.id, type: 'Story', storyPoints: 5 });
      await mk('Gift cards at checkout', { type: 'Story', storyPoints: 5, priority: 'Low' });
      await mk('Slow search on the catalogue', {
        type: 'Bug',
        storyPoints: 3,
        priority: 'High',
        labelIds: [p.labels.backend],
        assigneeId: ada.userId,
      });
      await mk('Update the payment icons', { type: 'Task', storyPoints: 1 });
      const sel = await mk('Write the checkout runbook', { type: 'Task', storyPoints: 2, priority: 'Low' });

      const page = await open(owner, theme);
      await gotoBacklog(page, p);
      await page.getByLabel(`Select ${sel.key}`).check();
      await page.mouse.move(700, 800);
      await page.waitForFunction(() => !document.querySelector('[data-testid="backlog-row"]:hover'));
      await screenshot(page, `backlog-${theme}`);
      await page.getByRole('button', { name: 'Complete Sprint 2' }).click();
      const dialog = page.getByRole('dialog', { name: 'Complete Sprint 2' });
      await dialog.getByLabel('Move to the next sprint').check();
      await screenshot(page, `sprint-complete-${theme}`);
    });
  }
});
