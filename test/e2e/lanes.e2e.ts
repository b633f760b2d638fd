/**
 * Swimlanes and filters that stay (issue 23, docs/decisions/049-swimlanes-and-filters.md): several
 * values per filter on the board and the backlog, kept in the address through a reload and a shared
 * link ("me" is whoever opens it); lanes by assignee and priority; a drag into another lane sets
 * its field; a saved view's grouping opens lanes.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  closeContexts,
  dragKey,
  filterChips,
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
let ada: ApiClient & { username: string; userId: string };
let bob: ApiClient & { username: string; userId: string };

interface Seeded {
  id: string;
  key: string;
  columns: { id: string; name: string }[];
}

/**
 * A project of Ada's with Bob as a member: 1 Bug (Ada, High, ui), 2 Story (Bob, Low, backend),
 * 3 Task (nobody, High), 4 Bug (Bob, Medium, ui), 5 Epic (nobody, Low) parent of 2.
 */
async function seed(): Promise<Seeded> {
  const key = uniqueKey('L');
  const project = await ada.req('POST', '/api/projects', { name: `Lanes ${key}`, key });
  await ada.req('POST', `/api/projects/${project.id}/members`, { userId: bob.userId });
  const columns = await ada.req('GET', `/api/projects/${project.id}/columns`);
  const label = async (name: string) =>
    (await ada.req('POST', `/api/projects/${project.id}/labels`, { name })).id as string;
  const ui = await label('ui');
  const backend = await label('backend');
  const make = (body: Record<string, unknown>) =>
    ada.req('POST', `/api/projects/${project.id}/tickets`, body);
  await make({ title: 'Ada bug', type: 'Bug', priority: 'High', assigneeId: ada.userId, labelIds: [ui] });
  await make({
    title: 'Bob story',
    type: 'Story',
    priority: 'Low',
    assigneeId: bob.userId,
    labelIds: [backend],
    columnId: columns[1].id,
  });
  await make({ title: 'Open task', type: 'Task', priority: 'High' });
  await make({ title: 'Bob bug', type: 'Bug', priority: 'Medium', assigneeId: bob.userId, labelIds: [ui] });
  const epic = await make({ title: 'Big epic', type: 'Epic', priority: 'Low' });
  await ada.req('PATCH', `/api/projects/${project.id}/tickets/${key}-2`, { parentId: epic.id });
  return { id: project.id, key: project.key, columns };
}

const titles = (page: Page, scope = '') =>
  page
    .locator(`${scope} [data-testid="card-title"]`)
    .allTextContents()
    .then((t) => t.sort());
const laneTitles = (page: Page, lane: string) =>
  titles(page, `[data-testid="lane"][data-lane-title="${lane}"]`);
const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);

async function open(who: ApiClient, path: string, opts: { theme?: 'light' | 'dark'; width?: number } = {}) {
  const page = await openPage(browser, base, who, {
    width: opts.width ?? 1440,
    height: 900,
    theme: opts.theme,
  });
  await page.goto(`${base}${path}`);
  await page.getByTestId('card-title').first().or(page.getByTestId('backlog-page')).first().waitFor();
  await settled(page);
  return page;
}

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
  ada = await ApiClient.signUp(base, unique('ada'), 'Ada Lovelace');
  bob = await ApiClient.signUp(base, unique('bob'), 'Bob Ross');
});

// Every page holds an event stream, and a session may hold only a few: close them after each test.
afterEach(closeContexts);

afterAll(() => stopSuite({ server, browser }));

describe('several values per filter', () => {
  it('filters the board by several types and assignees, keeps them on reload and in a link "me" reads for the opener', async () => {
    const s = await seed();
    const page = await open(ada, `/projects/${s.key}`);
    await expect.poll(() => titles(page)).toHaveLength(5);
    await pickFilter(page, 'Type', ['Bug', 'Story']);
    await expect.poll(() => titles(page)).toEqual(['Ada bug', 'Bob bug', 'Bob story']);
    await pickFilter(page, 'Assignee', ['Me', 'Unassigned']);
    await expect.poll(() => titles(page)).toEqual(['Ada bug']);
    await expect.poll(() => new URL(page.url()).search).toBe('?assignee=me,none&type=Story,Bug');
    expect(await filterChips(page, 'Type')).toEqual(['Story', 'Bug']);

    await page.reload();
    await page.getByTestId('card-title').first().waitFor();
    await expect.poll(() => titles(page)).toEqual(['Ada bug']);
    expect(await filterChips(page, 'Assignee')).toEqual(['Me', 'Unassigned']);

    // The same link opened by Bob: "me" is Bob now.
    const other = await open(bob, `/projects/${s.key}?assignee=me,none&type=bug,story`);
    await expect.poll(() => titles(other)).toEqual(['Bob bug', 'Bob story']);
    // Labels by name, several of them; an old single-value link keeps working.
    await other.goto(`${base}/projects/${s.key}?label=ui,backend&priority=Low`);
    await expect.poll(() => titles(other)).toEqual(['Bob story']);
    await other.goto(`${base}/projects/${s.key}?type=Task`);
    await expect.poll(() => titles(other)).toEqual(['Open task']);
  });

  it('keeps the backlog filters and sort in its address, through a reload and a shared link', async () => {
    const s = await seed();
    const page = await open(ada, `/projects/${s.key}/backlog`);
    const rows = () =>
      page.locator('[data-testid="backlog-row"] button[aria-label^="Open "]').allTextContents();
    await expect.poll(rows).toHaveLength(5);
    await pickFilter(page, 'Priority', ['High', 'Medium']);
    await page.getByLabel('Sort by').selectOption('priority');
    await expect.poll(() => param(page, 'priority')).toBe('High,Medium');
    await expect.poll(() => param(page, 'sort')).toBe('priority-desc');
    await expect.poll(rows).toEqual(['Ada bug', 'Open task', 'Bob bug']);

    await page.reload();
    await page.getByTestId('backlog-page').waitFor();
    await expect.poll(rows).toEqual(['Ada bug', 'Open task', 'Bob bug']);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('priority');
    expect(await filterChips(page, 'Priority')).toEqual(['High', 'Medium']);

    const other = await open(bob, `/projects/${s.key}/backlog?assignee=me&sort=number-desc`);
    const otherRows = () =>
      other.locator('[data-testid="backlog-row"] button[aria-label^="Open "]').allTextContents();
    await expect.poll(otherRows).toEqual(['Bob bug', 'Bob story']);
  });
});

describe('swimlanes', () => {
  it('groups the board by assignee and by priority, with the right cards in each lane', async () => {
    const s = await seed();
    const page = await open(ada, `/projects/${s.key}?group=assignee`);
    await page.getByTestId('lane').first().waitFor();
    expect(await page.getByTestId('lane-title').allTextContents()).toEqual([
      'Ada Lovelace',
      'Bob Ross',
      'No assignee',
    ]);
    expect(await laneTitles(page, 'Ada Lovelace')).toEqual(['Ada bug']);
    expect(await laneTitles(page, 'Bob Ross')).toEqual(['Bob bug', 'Bob story']);
    expect(await laneTitles(page, 'No assignee')).toEqual(['Big epic', 'Open task']);
    // Bob's story is in the second column of Bob's lane.
    await page
      .locator(`[data-testid="lane"][data-lane-title="Bob Ross"] [data-column-id="${s.columns[1].id}"]`)
      .getByText('Bob story')
      .waitFor();

    await page.getByLabel('Group by').selectOption('priority');
    await expect.poll(() => param(page, 'group')).toBe('priority');
    await expect
      .poll(() => page.getByTestId('lane-title').allTextContents())
      .toEqual(['High', 'Medium', 'Low']);
    expect(await laneTitles(page, 'High')).toEqual(['Ada bug', 'Open task']);
    expect(await laneTitles(page, 'Low')).toEqual(['Big epic', 'Bob story']);

    // Lanes by epic: the story under the epic, the rest in "No epic".
    await page.getByLabel('Group by').selectOption('epic');
    await page.locator('[data-testid="lane"]').first().waitFor();
    expect(await laneTitles(page, `${s.key}-5 Big epic`)).toEqual(['Bob story']);

    // A collapsed lane stays collapsed after a reload.
    await page.getByLabel('Group by').selectOption('priority');
    const high = page.locator('[data-testid="lane"][data-lane-title="High"]');
    await high.getByRole('button', { expanded: true }).click();
    await expect.poll(() => laneTitles(page, 'High')).toEqual([]);
    await page.reload();
    await page.getByTestId('lane').first().waitFor();
    expect(await high.getByRole('button').getAttribute('aria-expanded')).toBe('false');
    expect(await high.getByTestId('lane-count').textContent()).toBe('2');
    expect(await laneTitles(page, 'Low')).toEqual(['Big epic', 'Bob story']);
  });

  it("sets the assignee of a card dragged into another person's lane, with the column move", async () => {
    const s = await seed();
    const page = await open(ada, `/projects/${s.key}?group=assignee`);
    const card = page.locator(`[data-testid="lane"][data-lane-title="No assignee"] [data-key="${s.key}-3"]`);
    await card.waitFor();
    const target = page.locator(
      `[data-testid="lane"][data-lane-title="Bob Ross"] [data-column-id="${s.columns[2].id}"]`,
    );
    const from = (await card.boundingBox())!;
    const to = (await target.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 12, from.y + from.height / 2, { steps: 3 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 20 });
    await page.waitForTimeout(200);
    await page.mouse.up();
    await target.locator(`[data-key="${s.key}-3"]`).waitFor();
    await expect
      .poll(async () => {
        const t = await ada.req('GET', `/api/projects/${s.id}/tickets/${s.key}-3`);
        return [t.assigneeId, t.columnId];
      })
      .toEqual([bob.userId, s.columns[2].id]);

    // The keyboard still walks the cards inside lanes: j from nothing focuses the first card.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLElement)?.dataset.key))
      .toBe(`${s.key}-1`);
    await page.keyboard.press('j');
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLElement)?.dataset.key))
      .toBe(`${s.key}-4`);

    // A keyboard move: Right takes Ada's bug to In Progress inside Ada's lane; the assignee stays.
    await settled(page);
    await page.locator(`[data-key="${s.key}-1"]`).focus();
    const live = page.locator('[id^="DndLiveRegion"]');
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toMatch(/^(Picked up|Over|In) /);
    await dragKey(page, 'ArrowRight', 'In In Progress, place 1 of 1.');
    await page.keyboard.press('Space');
    await expect
      .poll(async () => {
        const t = await ada.req('GET', `/api/projects/${s.id}/tickets/${s.key}-1`);
        return [t.assigneeId, t.columnId];
      })
      .toEqual([ada.userId, s.columns[1].id]);
    await page
      .locator(`[data-testid="lane"][data-lane-title="Ada Lovelace"] [data-column-id="${s.columns[1].id}"]`)
      .locator(`[data-key="${s.key}-1"]`)
      .waitFor();
  });

  it("opens lanes from a saved view's grouping", async () => {
    const s = await seed();
    await ada.req('POST', '/api/views', {
      name: 'Bugs by priority',
      query: 'type:bug',
      projectId: s.id,
      groupBy: 'priority',
    });
    const page = await open(ada, `/projects/${s.key}`);
    expect(await page.getByTestId('lane').count()).toBe(0);
    await page.getByLabel('View', { exact: true }).selectOption({ label: 'Bugs by priority' });
    await expect.poll(() => param(page, 'group')).toBe('priority');
    await expect.poll(() => page.getByTestId('lane-title').allTextContents()).toEqual(['High', 'Medium']);
    expect(await laneTitles(page, 'High')).toEqual(['Ada bug']);
    expect(await laneTitles(page, 'Medium')).toEqual(['Bob bug']);
  });

  it('shows a board with lanes in both themes and at a phone width', async () => {
    const s = await seed();
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(ada, `/projects/${s.key}?group=assignee&type=Bug,Story,Task`, { theme });
      await page.getByTestId('lane').first().waitFor();
      await screenshot(page, `board-lanes-${theme}`);
      await page.getByRole('button', { name: 'Type', exact: true }).click();
      await page.getByRole('group', { name: 'Type', exact: true }).waitFor();
      await screenshot(page, `board-filter-picker-${theme}`);
      await page.keyboard.press('Escape');
    }
    const phone = await open(ada, `/projects/${s.key}?group=priority`, { width: 390 });
    await phone.getByTestId('lane').first().waitFor();
    await screenshot(phone, 'board-lanes-phone');
  });
});
