import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, openPage, type Server, screenshot, startSuite, stopSuite, uniqueKey } from './harness.js';

let server: Server;
let browser: Browser;
let base: string;

const open = (client: ApiClient, theme: 'light' | 'dark' = 'light', height?: number) =>
  openPage(browser, base, client, { theme, height });

interface Seeded {
  project: { id: string; key: string };
  columns: { id: string; name: string }[];
  sprint1: { id: string };
  sprint2: { id: string };
  planned: { id: string };
  ticketD: { id: string };
}

const today = () => new Date().toISOString().slice(0, 10);
function plusDays(n: number) {
  const d = new Date(`${today()}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

async function newProject(client: ApiClient, name: string) {
  const key = uniqueKey('R');
  const project = await client.req('POST', '/api/projects', { name, key });
  const columns = await client.req('GET', `/api/projects/${project.id}/columns`);
  return { project, columns } as {
    project: { id: string; key: string };
    columns: { id: string; name: string }[];
  };
}

/**
 * A project with Sprint 1 completed (10 points committed, 8 done, one 2-point ticket carried over),
 * Sprint 2 active (the carried ticket and an 8-point one; the carried one done since) and Sprint 3
 * planned.
 */
async function seed(client: ApiClient, history: [number[], number][] = []): Promise<Seeded> {
  const { project, columns } = await newProject(client, 'Reports Lab');
  const [todo, doing, done] = columns;
  const P = `/api/projects/${project.id}`;
  // Earlier sprints, each with its tickets' points and how many of them get done.
  for (const [i, [points, doneCount]] of history.entries()) {
    const sprint = await client.req('POST', `${P}/sprints`, { name: `Warm-up ${i + 1}` });
    const tickets = [];
    for (const sp of points)
      tickets.push(
        await client.req('POST', `${P}/tickets`, {
          title: `Chore ${sp}`,
          storyPoints: sp,
          sprintId: sprint.id,
        }),
      );
    await client.req('POST', `${P}/sprints/${sprint.id}/start`, {});
    for (const t of tickets.slice(0, doneCount))
      await client.req('PATCH', `${P}/tickets/${t.id}`, { columnId: done.id });
    await client.req('POST', `${P}/sprints/${sprint.id}/complete`, { incompleteAction: 'moveToBacklog' });
  }
  const sprint1 = await client.req('POST', `${P}/sprints`, { name: 'Sprint 1', goal: 'Ship the importer' });
  const ticket = (title: string, storyPoints: number, sprintId: string | null) =>
    client.req('POST', `${P}/tickets`, { title, storyPoints, sprintId, columnId: todo.id });
  const a = await ticket('Parse CSV', 5, sprint1.id);
  const b = await ticket('Map fields', 3, sprint1.id);
  const c = await ticket('Write docs', 2, sprint1.id);
  await client.req('POST', `${P}/sprints/${sprint1.id}/start`, { startDate: today(), endDate: plusDays(6) });
  await client.req('PATCH', `${P}/tickets/${a.id}`, { columnId: done.id });
  await client.req('PATCH', `${P}/tickets/${b.id}`, { columnId: done.id });
  const sprint2 = await client.req('POST', `${P}/sprints`, { name: 'Sprint 2' });
  await client.req('POST', `${P}/sprints/${sprint1.id}/complete`, {
    incompleteAction: 'moveToNextSprint',
    nextSprintId: sprint2.id,
  });
  const ticketD = await ticket('Export to PDF', 8, sprint2.id);
  await client.req('POST', `${P}/sprints/${sprint2.id}/start`, { startDate: today(), endDate: plusDays(13) });
  await client.req('PATCH', `${P}/tickets/${c.id}`, { columnId: done.id });
  await client.req('PATCH', `${P}/tickets/${ticketD.id}`, { columnId: doing.id });
  const planned = await client.req('POST', `${P}/sprints`, { name: 'Sprint 3' });
  return { project, columns, sprint1, sprint2, planned, ticketD };
}

const stat = (page: Page, id: string) => page.getByTestId(`stat-${id}`);

/** The rows of a data table, each as its cells' texts. */
async function tableRows(page: Page, testId: string) {
  return page
    .getByTestId(testId)
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())));
}

/** How the page writes a number (the browser's locale, at most two decimals; a dash for none). */
async function formatted(page: Page, values: (number | null)[]) {
  return page.evaluate(
    (vs) =>
      vs.map((v) =>
        v === null ? '—' : new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(v),
      ),
    values,
  );
}

async function streamOpen(page: Page, path: string) {
  await page.waitForFunction(
    (p) => (document.documentElement.dataset.streams ?? '').split(' ').includes(p),
    path,
  );
}

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
});

afterAll(() => stopSuite({ server, browser }));

describe('reports', () => {
  it('opens on the active sprint with its burndown, summary and data table as the API reports them', async () => {
    const user = await ApiClient.signUp(base, undefined, 'Report Reader');
    const s = await seed(user);
    const page = await open(user, 'light', 1240);
    await page.goto(`${base}/projects/${s.project.key}/reports`);

    const picker = page.getByLabel('Sprint', { exact: true });
    await page.getByRole('region', { name: 'Burndown: Sprint 2' }).waitFor();
    expect(await picker.inputValue()).toBe(s.sprint2.id);
    expect(
      await picker
        .locator('optgroup')
        .evaluateAll((gs) =>
          gs.map(
            (g) => `${g.getAttribute('label')}: ${[...g.children].map((o) => o.textContent).join(', ')}`,
          ),
        ),
    ).toEqual(['Active: Sprint 2', 'Completed: Sprint 1', 'Planning: Sprint 3']);

    // Sprint 2 committed the carried 2-point ticket and the 8-point one; the 2-point one is done.
    expect(await stat(page, 'committed').textContent()).toBe('10 pts');
    expect(await stat(page, 'completed').textContent()).toBe('2 pts');
    expect(await stat(page, 'remaining').textContent()).toBe('8 pts');
    expect(await stat(page, 'days-left').textContent()).toBe('13');

    // The data table holds every day of the sprint exactly as the API computes it.
    const api = await user.req('GET', `/api/projects/${s.project.id}/sprints/${s.sprint2.id}/burndown`);
    expect(api.days).toHaveLength(14);
    const rows = await tableRows(page, 'burndown-table');
    expect(rows).toHaveLength(14);
    for (const [i, d] of (api.days as Record<string, number | null>[]).entries()) {
      expect(rows[i].slice(1)).toEqual(
        await formatted(page, [
          d.remainingPoints,
          d.idealPoints,
          d.completedPoints,
          d.scopePoints,
          d.remainingTickets,
        ]),
      );
    }
    expect(rows[0].slice(1, 3)).toEqual(['8', await formatted(page, [9.29]).then((x) => x[0])]);
    expect(rows[13][1]).toBe('—');

    // The chart: the ideal line has a point per day, the remaining line a dot for the one day so far.
    const chart = page.getByTestId('burndown-chart');
    const svg = chart.locator('svg[role="img"]');
    expect(await svg.count()).toBe(1);
    expect(await svg.getAttribute('aria-label')).toMatch(
      /^Burndown of Sprint 2, .*10 pts committed, 8 pts remaining/,
    );
    const curves = chart.locator('path.recharts-line-curve');
    await expect.poll(() => curves.count()).toBe(3);
    const paths = await curves.evaluateAll((ps) => ps.map((p) => p.getAttribute('d') ?? ''));
    expect((paths[0].match(/L/g) ?? []).length).toBe(13);
    expect(await chart.locator('.recharts-line-dots circle').count()).toBe(1);
    expect(await chart.getByText('Today').count()).toBe(1);

    // The table can be shown on screen too.
    const table = page.getByTestId('burndown-table');
    // Hidden, it stays in the document for screen readers in a 1-pixel clipped box.
    const box = () => table.evaluate((t) => t.parentElement!.getBoundingClientRect().width);
    expect(await box()).toBeLessThanOrEqual(1);
    await page
      .getByRole('region', { name: 'Burndown: Sprint 2' })
      .getByRole('button', { name: 'Show data table' })
      .click();
    expect(await box()).toBeGreaterThan(300);

    // Velocity: Sprint 1 committed 10, completed 8 (2 tickets of 3), carried one over.
    expect(await stat(page, 'average').textContent()).toBe('8 pts');
    expect(await stat(page, 'last-sprint').textContent()).toBe('8 / 10');
    expect(await stat(page, 'completion-rate').textContent()).toBe('80%');
    expect(await stat(page, 'carried-over').textContent()).toBe('1');
    expect(await tableRows(page, 'velocity-table')).toEqual([['Sprint 1', '10', '8', '2 of 3', '1']]);
    const bars = page.getByTestId('velocity-chart').locator('.recharts-bar-rectangle path');
    await expect.poll(() => bars.count()).toBe(2);
    const heights = await bars.evaluateAll((ps) => ps.map((p) => (p as SVGGraphicsElement).getBBox().height));
    expect(heights[1] / heights[0]).toBeCloseTo(0.8, 1);

    await page
      .getByRole('region', { name: 'Burndown: Sprint 2' })
      .getByRole('button', { name: 'Hide data table' })
      .click();
    await page.mouse.move(0, 0);
    await screenshot(page, 'reports-light');

    // Live: a ticket moved elsewhere updates the burndown without a reload.
    await streamOpen(page, `/api/projects/${s.project.id}/events`);
    await user.req('PATCH', `/api/projects/${s.project.id}/tickets/${s.ticketD.id}`, {
      columnId: s.columns[2].id,
    });
    await expect.poll(() => stat(page, 'remaining').textContent()).toBe('0 pts');
    expect(await stat(page, 'completed').textContent()).toBe('10 pts');
  });

  it('switches to a completed sprint, keeps the choice in the address, and explains a planned one', async () => {
    const user = await ApiClient.signUp(base);
    const s = await seed(user);
    const page = await open(user);
    await page.goto(`${base}/projects/${s.project.key}/reports`);
    await page.getByRole('region', { name: 'Burndown: Sprint 2' }).waitFor();

    await page.getByLabel('Sprint', { exact: true }).selectOption(s.sprint1.id);
    await page.getByRole('region', { name: 'Burndown: Sprint 1' }).waitFor();
    expect(new URL(page.url()).searchParams.get('sprint')).toBe(s.sprint1.id);
    await expect.poll(() => stat(page, 'remaining').textContent()).toBe('2 pts');
    expect(await stat(page, 'committed').textContent()).toBe('10 pts');
    expect(await stat(page, 'completed').textContent()).toBe('8 pts');
    expect(await stat(page, 'scope-change').textContent()).toBe('0 pts');
    expect(await page.getByTestId('sprint-summary').textContent()).toContain('Goal: Ship the importer');
    const rows = await tableRows(page, 'burndown-table');
    expect(rows).toHaveLength(7);
    // Completed today: the first day is measured at completion, the rest were never reached.
    expect(rows[0].slice(1, 2)).toEqual(['2']);
    expect(rows.slice(1).every((r) => r[1] === '—')).toBe(true);
    expect(await page.getByTestId('burndown-chart').getByText('Today').count()).toBe(0);

    await page.reload();
    await page.getByRole('region', { name: 'Burndown: Sprint 1' }).waitFor();
    expect(await page.getByLabel('Sprint', { exact: true }).inputValue()).toBe(s.sprint1.id);

    await page.getByLabel('Sprint', { exact: true }).selectOption(s.planned.id);
    await page.getByTestId('burndown-empty').getByText('Sprint 3 has not started').waitFor();
    expect(await page.getByTestId('burndown-chart').count()).toBe(0);
  });

  it('shows the empty states: no sprints at all, and no completed sprint yet', async () => {
    const user = await ApiClient.signUp(base);
    const { project } = await newProject(user, 'Empty Reports');
    const page = await open(user);
    await page.goto(`${base}/projects/${project.key}/reports`);
    await page.getByText('No sprints yet').waitFor();
    const link = page.getByRole('link', { name: 'Plan a sprint in the backlog' });
    expect(await link.getAttribute('href')).toMatch(new RegExp(`/projects/${project.key}/backlog$`));
    expect(await page.locator('svg.recharts-surface').count()).toBe(0);

    // The first sprint starts: the report opens on it, velocity waits for a completed one.
    const sprint = await user.req('POST', `/api/projects/${project.id}/sprints`, {});
    await user.req('POST', `/api/projects/${project.id}/tickets`, {
      title: 'First',
      storyPoints: 3,
      sprintId: sprint.id,
    });
    await user.req('POST', `/api/projects/${project.id}/sprints/${sprint.id}/start`, {});
    await page.reload();
    await page.getByRole('region', { name: `Burndown: ${sprint.name}` }).waitFor();
    await expect.poll(() => stat(page, 'committed').textContent()).toBe('3 pts');
    await page.getByTestId('velocity-empty').waitFor();
    expect(await page.getByTestId('velocity-chart').count()).toBe(0);
  });

  it('draws the charts in the dark theme with its colours', async () => {
    const user = await ApiClient.signUp(base);
    // Three earlier sprints: 5 of 13, 5 of 5 and 11 of 16 points done.
    const s = await seed(user, [
      [[5, 3, 5], 1],
      [[3, 2], 2],
      [[8, 3, 5], 2],
    ]);
    const page = await open(user, 'dark', 1240);
    await page.goto(`${base}/projects/${s.project.key}/reports`);
    const curves = page.getByTestId('burndown-chart').locator('path.recharts-line-curve');
    await expect.poll(() => curves.count()).toBe(3);
    // The remaining line takes the dark accent, the grid the dark line colour: no light-only colours.
    const strokes = await curves.evaluateAll((ps) => ps.map((p) => getComputedStyle(p).stroke));
    expect(strokes[2]).toBe('rgb(139, 133, 255)');
    const tick = page.getByTestId('burndown-chart').locator('.recharts-cartesian-axis-tick-value').first();
    expect(await tick.evaluate((t) => getComputedStyle(t).fill)).toBe('rgb(163, 163, 174)');
    // Velocity over the four completed sprints, oldest first; the average of 8, 5, 11 and 8 points.
    const bars = page.getByTestId('velocity-chart').locator('.recharts-bar-rectangle path');
    await expect.poll(() => bars.count()).toBe(8);
    expect((await tableRows(page, 'velocity-table')).map((r) => r.slice(0, 3))).toEqual([
      ['Warm-up 1', '13', '5'],
      ['Warm-up 2', '5', '5'],
      ['Warm-up 3', '16', '11'],
      ['Sprint 1', '10', '8'],
    ]);
    expect(await stat(page, 'average').textContent()).toBe('7.25 pts');
    await screenshot(page, 'reports-dark');
  });
});
