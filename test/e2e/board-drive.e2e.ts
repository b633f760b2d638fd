/**
 * A board you can drive (issue 23): dragging toward a far column lands the card where the pointer
 * is, the board scrolls only near its edge and at a speed a person can follow, and in a keyboard
 * move Left/Right change the column while Up/Down change the place.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_ACCELERATION, EDGE_BAND_PX } from '../../src/web/pages/board-drive.js';
import {
  ApiClient,
  dragKey,
  filterChips,
  openBoard as openBoardPage,
  openPage,
  pickFilter,
  type SeededBoard,
  type Server,
  screenshot,
  seedBoard,
  settled,
  startSuite,
  stopSuite,
  unique,
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;
let client: ApiClient & { username: string; userId: string };

type Seeded = SeededBoard;
/** A project with `extra` columns after the three default ones and `cards` tickets in To Do. */
const seed = (extra: number, cards: number) => seedBoard(client, 'Drive', cards, extra);
const ticket = (s: Seeded, n: number) =>
  client.req('GET', `/api/projects/${s.project.key}/tickets/${s.project.key}-${n}`);

const openBoard = (s: Seeded) => openBoardPage(browser, base, client, s);

const scrollLeft = (page: Page) => page.getByTestId('board').evaluate((b) => b.scrollLeft);

/** The name of the column whose box holds the point (x, y), read from the page. */
const columnAt = (page: Page, x: number, y: number) =>
  page.evaluate(
    ([px, py]) =>
      [...document.querySelectorAll<HTMLElement>('[data-testid="column"]')].find((c) => {
        const r = c.getBoundingClientRect();
        return px >= r.left && px <= r.right && py >= r.top && py <= r.bottom;
      })?.dataset.columnName ?? null,
    [x, y],
  );

/** Records every auto-scroll step dnd-kit takes on the board (its `scrollBy(x, y)` calls). */
const recordScrollSteps = (page: Page) =>
  page.getByTestId('board').evaluate((b) => {
    const steps: number[] = [];
    (window as unknown as { __scrollSteps: number[] }).__scrollSteps = steps;
    const scrollBy = b.scrollBy.bind(b) as (x: number, y: number) => void;
    b.scrollBy = ((x: number | ScrollToOptions, y?: number) => {
      steps.push(typeof x === 'number' ? x : (x.left ?? 0));
      if (typeof x === 'number') scrollBy(x, y ?? 0);
      else b.scrollTo({ left: b.scrollLeft + (x.left ?? 0), top: b.scrollTop + (x.top ?? 0) });
    }) as typeof b.scrollBy;
  });
const scrollSteps = (page: Page) =>
  page.evaluate(() => [...(window as unknown as { __scrollSteps: number[] }).__scrollSteps]);
/** Whether no scroll step was taken during the next `n` animation frames. */
const quietFrames = (page: Page, n: number) =>
  page.evaluate(
    (frames) =>
      new Promise<boolean>((resolve) => {
        const steps = (window as unknown as { __scrollSteps: number[] }).__scrollSteps;
        const before = steps.length;
        let left = frames;
        const tick = () => (--left > 0 ? requestAnimationFrame(tick) : resolve(steps.length === before));
        requestAnimationFrame(tick);
      }),
    n,
  );

async function pickUp(page: Page, s: Seeded, n: number) {
  const card = page.locator(`[data-key="${s.project.key}-${n}"]`);
  const box = (await card.boundingBox())!;
  const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 12, start.y, { steps: 3 });
  return start;
}

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
  client = await ApiClient.signUp(base, unique('drv'), 'Grace Hopper');
});

afterAll(() => stopSuite({ server, browser }));

describe('drag to a far column', () => {
  it('lands the card in the column under the pointer, without scrolling the board away at 1440 px', async () => {
    const s = await seed(4, 2);
    const page = await openBoard(s);
    const board = (await page.getByTestId('board').boundingBox())!;
    // Toward the fifth column: as far right as it is visible, but clear of the board's last 100 px.
    const fifth = (await page.locator('[data-testid="column"]').nth(4).boundingBox())!;
    const x = Math.min(fifth.x + fifth.width / 2, board.x + board.width - 100);
    const y = fifth.y + 30;
    const before = await scrollLeft(page);
    const start = await pickUp(page, s, 1);
    await page.mouse.move(x, start.y, { steps: 20 });
    await page.mouse.move(x, y, { steps: 5 });
    // A person aims and lets go after a moment; the board must stay put meanwhile.
    await page.waitForTimeout(400);
    const under = await columnAt(page, x, y);
    expect(await scrollLeft(page)).toBe(before);
    await page.mouse.up();
    const target = s.columns.find((c) => c.name === under)!;
    expect(s.columns.indexOf(target)).toBeGreaterThanOrEqual(3);
    await page.locator(`[data-column-name="${under}"] [data-key="${s.project.key}-1"]`).waitFor();
    await expect.poll(async () => (await ticket(s, 1)).columnId).toBe(target.id);
  });

  it('scrolls near the edge in small steps that grow toward it, stops outside the band, and drops where the pointer then is', async () => {
    const s = await seed(7, 2);
    const page = await openBoard(s);
    const board = (await page.getByTestId('board').boundingBox())!;
    const maxScroll = await page.getByTestId('board').evaluate((b) => b.scrollWidth - b.clientWidth);
    expect(maxScroll).toBeGreaterThan(1000);
    await recordScrollSteps(page);
    await pickUp(page, s, 2);
    // Inside the edge band, 50 px from the edge: a slow crawl. Each step of the auto-scroll is the
    // band's speed at that depth (EDGE_ACCELERATION px at the very edge), however fast the machine
    // runs its frames; a band as wide as a share of the board (dnd-kit's default, 20 %) or the
    // default acceleration would take far longer steps here.
    const x = board.x + board.width - 50;
    const y = board.y + 30;
    await page.mouse.move(x, y, { steps: 20 });
    await expect
      .poll(() => scrollSteps(page).then((st) => st.length), { timeout: 10_000 })
      .toBeGreaterThan(4);
    const depth = (EDGE_BAND_PX - 50) / EDGE_BAND_PX;
    const crawl = await scrollSteps(page);
    expect(crawl.every((dx) => dx > 0 && dx <= EDGE_ACCELERATION * depth + 0.5)).toBe(true);
    expect(await scrollLeft(page)).toBeGreaterThan(0);
    // Out of the band, the board stops: soon no step is taken for a run of frames, and none after.
    await page.mouse.move(x - 250, y, { steps: 5 });
    await expect.poll(() => quietFrames(page, 10), { timeout: 10_000 }).toBe(true);
    const stopped = await scrollLeft(page);
    expect(await quietFrames(page, 10)).toBe(true);
    expect(await scrollLeft(page)).toBe(stopped);
    const under = await columnAt(page, x - 250, y);
    expect(under).not.toBeNull();
    await page.mouse.up();
    const target = s.columns.find((c) => c.name === under)!;
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(target.id);
  });
});

describe('keyboard moves', () => {
  it('moves a card to the next column with one Right arrow and changes its place with Up and Down', async () => {
    const s = await seed(0, 3);
    await client.req('POST', `/api/projects/${s.project.id}/tickets`, {
      title: 'Already in progress',
      columnId: s.columns[1].id,
    });
    const page = await openBoard(s);
    const k = (n: number) => `${s.project.key}-${n}`;
    // Card 2 is second in To Do; Right puts it second in In Progress (after the one card there).
    await page.locator(`[data-key="${k(2)}"]`).focus();
    const live = page.locator('[id^="DndLiveRegion"]');
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toMatch(/^(Picked up|Over|In) /);
    await dragKey(page, 'ArrowRight', 'In In Progress, place 2 of 2.');
    await page.keyboard.press('Space');
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(s.columns[1].id);
    expect((await ticket(s, 2)).order).toBe(1);
    await settled(page);

    // Up changes the place within the column, not the column.
    await page.locator(`[data-key="${k(2)}"]`).focus();
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toMatch(/^(Picked up|Over|In) /);
    await dragKey(page, 'ArrowUp', `Over ${k(4)}.`);
    await page.keyboard.press('Space');
    await expect.poll(async () => (await ticket(s, 2)).order).toBe(0);
    expect((await ticket(s, 2)).columnId).toBe(s.columns[1].id);
    await settled(page);

    // Left back to To Do, into an empty-ended column: the card goes to its end.
    await page.locator(`[data-key="${k(2)}"]`).focus();
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toMatch(/^(Picked up|Over|In) /);
    await dragKey(page, 'ArrowLeft', 'In To Do, place 1 of 3.');
    await page.keyboard.press('Space');
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(s.columns[0].id);
    expect((await ticket(s, 2)).order).toBe(0);
  });
});

describe('due dates', () => {
  it('shows due dates on cards and backlog rows and marks the overdue ones, except in the done column', async () => {
    const s = await seed(0, 0);
    const day = (offset: number) => {
      const d = new Date();
      d.setDate(d.getDate() + offset);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    const make = (title: string, dueDate: string, columnId: string) =>
      client.req('POST', `/api/projects/${s.project.id}/tickets`, { title, dueDate, columnId });
    const late = await make('Late', day(-3), s.columns[0].id);
    const soon = await make('Soon', day(4), s.columns[0].id);
    const doneLate = await make('Finished late', day(-3), s.columns[2].id);
    const page = await openBoard(s);
    const due = (key: string) =>
      page.locator(`[data-testid="card"][data-key="${key}"] [data-testid="due-date"]`);
    await expect.poll(() => due(late.key).getAttribute('data-overdue')).toBe('true');
    expect(await due(late.key).textContent()).toMatch(/Overdue, was due/);
    expect(await due(soon.key).getAttribute('data-overdue')).toBeNull();
    expect(await due(soon.key).textContent()).toMatch(/Due /);
    expect(await due(doneLate.key).getAttribute('data-overdue')).toBeNull();

    await page.goto(`${base}/projects/${s.project.key}/backlog`);
    const row = (key: string) =>
      page.locator(`[data-testid="backlog-row"][data-key="${key}"] [data-testid="due-date"]`);
    await expect.poll(() => row(late.key).getAttribute('data-overdue')).toBe('true');
    expect(await row(soon.key).getAttribute('data-overdue')).toBeNull();
    expect(await row(doneLate.key).getAttribute('data-overdue')).toBeNull();
  });
});

describe('who may delete', () => {
  it("offers Delete on a member's own tickets only, until an admin lets every member delete", async () => {
    const s = await seed(0, 1); // Card 1, reported by the owner
    const member = await ApiClient.signUp(base, unique('mem'), 'Mary Member');
    await client.req('POST', `/api/projects/${s.project.id}/members`, {
      userId: member.userId,
      role: 'member',
    });
    const own = await member.req('POST', `/api/projects/${s.project.id}/tickets`, { title: 'Mine' });
    const page = await openPage(browser, base, member, { width: 1440, height: 900 });
    const drawerDelete = () =>
      page.getByTestId('ticket-drawer').getByRole('button', { name: 'Delete', exact: true });

    await page.goto(`${base}/projects/${s.project.key}/${own.key}`);
    await page.getByTestId('drawer-key').getByText(own.key).waitFor();
    await drawerDelete().waitFor();

    await page.goto(`${base}/projects/${s.project.key}/${s.project.key}-1`);
    await page.getByTestId('drawer-key').getByText(`${s.project.key}-1`).waitFor();
    await settled(page);
    expect(await drawerDelete().count()).toBe(0);
    // The API says the same.
    const refused = await fetch(`${base}/api/projects/${s.project.id}/tickets/${s.project.key}-1`, {
      method: 'DELETE',
      headers: { cookie: member.cookie, accept: 'application/json' },
    });
    expect(refused.status).toBe(403);

    // The owner opens deletion to every member in the project's settings.
    const ownerPage = await openPage(browser, base, client, { width: 1440, height: 900 });
    await ownerPage.goto(`${base}/projects/${s.project.key}/settings`);
    await ownerPage.getByLabel('Let every member delete any ticket').check();
    await expect
      .poll(async () => (await client.req('GET', `/api/projects/${s.project.id}`)).membersMayDeleteTickets)
      .toBe(true);

    await page.reload();
    await drawerDelete().click();
    await page.getByRole('button', { name: 'Delete ticket' }).click();
    await expect
      .poll(
        async () =>
          (
            await fetch(`${base}/api/projects/${s.project.id}/tickets/${s.project.key}-1`, {
              headers: { cookie: member.cookie, accept: 'application/json' },
            })
          ).status,
      )
      .toBe(404);
  });
});

describe('card shortcuts', () => {
  it('moves between cards with j/k and sets assignee, status, priority and labels with a/s/p/l', async () => {
    const s = await seed(0, 2);
    await client.req('POST', `/api/projects/${s.project.id}/tickets`, {
      title: 'Card 3',
      columnId: s.columns[1].id,
    });
    const label = await client.req('POST', `/api/projects/${s.project.id}/labels`, {
      name: 'frontend',
      color: '#3B82F6',
    });
    const page = await openBoard(s);
    const k = (n: number) => `${s.project.key}-${n}`;
    const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.key);

    // Column by column, top to bottom.
    await page.keyboard.press('j');
    await expect.poll(focused).toBe(k(1));
    await page.keyboard.press('j');
    await expect.poll(focused).toBe(k(2));
    await page.keyboard.press('j');
    await expect.poll(focused).toBe(k(3));
    await page.keyboard.press('k');
    await expect.poll(focused).toBe(k(2));

    // p: priority, picked with the arrow keys and Enter; focus comes back to the card.
    await page.keyboard.press('p');
    const menu = page.getByRole('menu', { name: `Set priority of ${k(2)}` });
    await menu.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toMatch(/Medium/);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ticket(s, 2)).priority).toBe('High');
    await expect.poll(focused).toBe(k(2));

    // a: assignee.
    await page.keyboard.press('a');
    await page.getByRole('menu', { name: `Set assignee of ${k(2)}` }).waitFor();
    await page.getByRole('menuitem', { name: 'Grace Hopper' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ticket(s, 2)).assigneeId).toBe(client.userId);

    // l: labels, toggled; Escape closes.
    await expect.poll(focused).toBe(k(2));
    await page.keyboard.press('l');
    await page.getByRole('menuitemcheckbox', { name: /frontend/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ticket(s, 2)).labelIds).toEqual([label.id]);
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe(k(2));

    // s: status, i.e. the column.
    await page.keyboard.press('s');
    await page.getByRole('menuitem', { name: 'Done' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(s.columns[2].id);

    // Listed under ?.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.getByText('On the board: next or previous card').waitFor();
    await sheet.getByText('On a focused card: set the labels').waitFor();
  });
});

describe('multi-select on the board', () => {
  it('selects cards by Ctrl-click and x, moves them together and deletes them with the bulk actions', async () => {
    const s = await seed(0, 3);
    const page = await openBoard(s);
    const k = (n: number) => `${s.project.key}-${n}`;
    const card = (n: number) => page.locator(`[data-testid="card"][data-key="${k(n)}"]`);
    await card(1).click({ modifiers: ['ControlOrMeta'] });
    // A selecting click does not open the ticket.
    expect(await page.getByTestId('ticket-drawer').count()).toBe(0);
    await card(2).focus();
    await page.keyboard.press('x');
    await expect.poll(() => page.getByTestId('selection-count').textContent()).toBe('2 selected');
    expect(await card(1).getAttribute('data-selected')).toBe('true');
    expect(await card(3).getAttribute('data-selected')).toBeNull();

    await page.getByLabel('Move selected tickets to column').selectOption({ label: 'Done' });
    await expect.poll(async () => (await ticket(s, 1)).columnId).toBe(s.columns[2].id);
    expect((await ticket(s, 2)).columnId).toBe(s.columns[2].id);
    expect((await ticket(s, 3)).columnId).toBe(s.columns[0].id);
    await page.locator(`[data-column-name="Done"] [data-key="${k(2)}"]`).waitFor();

    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete 2 tickets' }).click();
    await expect
      .poll(async () => (await client.req('GET', `/api/projects/${s.project.id}/tickets`)).length)
      .toBe(1);
    await card(1).waitFor({ state: 'detached' });
    expect(await page.getByTestId('selection-count').count()).toBe(0);

    // Escape clears a selection.
    await card(3).click({ modifiers: ['Shift'] });
    await page.getByTestId('selection-count').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('selection-count').waitFor({ state: 'detached' });
  });
});

describe('screenshots', () => {
  it('shows the driven board (due dates, a selection, the quick-set menu) and the deletion setting in both themes', async () => {
    const s = await seed(1, 0);
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const titles = [
      'Fix the login redirect',
      'Write the release notes',
      'Polish the empty states',
      'Audit the API keys',
    ];
    for (const [i, title] of titles.entries())
      await client.req('POST', `/api/projects/${s.project.id}/tickets`, {
        title,
        columnId: s.columns[i % 2].id,
        dueDate: day(i === 0 ? -2 : i * 3),
        priority: i === 0 ? 'High' : 'Medium',
        storyPoints: [3, 5, 2, 8][i],
      });
    for (const theme of ['light', 'dark'] as const) {
      const page = await openPage(browser, base, client, { width: 1440, height: 900, theme });
      await page.goto(`${base}/projects/${s.project.key}`);
      await page.locator(`[data-key="${s.project.key}-1"]`).waitFor();
      await settled(page);
      await page.locator(`[data-key="${s.project.key}-2"]`).click({ modifiers: ['ControlOrMeta'] });
      await page.locator(`[data-key="${s.project.key}-3"]`).click({ modifiers: ['ControlOrMeta'] });
      await page.getByTestId('selection-count').waitFor();
      await page.locator(`[data-key="${s.project.key}-1"]`).focus();
      await page.keyboard.press('p');
      await page.getByRole('menu', { name: `Set priority of ${s.project.key}-1` }).waitFor();
      await screenshot(page, `board-drive-${theme}`);
      await page.keyboard.press('Escape');

      await page.goto(`${base}/projects/${s.project.key}/settings`);
      const section = page.getByRole('region', { name: 'Ticket deletion' });
      await section.waitFor();
      await section.scrollIntoViewIfNeeded();
      await screenshot(page, `settings-ticket-deletion-${theme}`);
    }
  });
});

describe('new-ticket dialog', () => {
  it('sets points, sprint, dates, parent, labels and assignee at creation', async () => {
    const s = await seed(0, 1);
    const sprint = await client.req('POST', `/api/projects/${s.project.id}/sprints`, { name: 'Sprint Nine' });
    const label = await client.req('POST', `/api/projects/${s.project.id}/labels`, {
      name: 'backend',
      color: '#10B981',
    });
    const page = await openBoard(s);
    await page.keyboard.press('c');
    const dialog = page.getByRole('dialog', { name: 'New ticket' });
    await dialog.getByLabel('Title').fill('Cache the avatars');
    await dialog.getByLabel('Story points').selectOption('5');
    await dialog.getByLabel('Sprint', { exact: true }).selectOption({ label: 'Sprint Nine' });
    await dialog.getByLabel('Start date').fill('2026-12-01');
    await dialog.getByLabel('Due date').fill('2026-12-11');
    await dialog.getByLabel('Parent (ticket key, optional)').fill(`${s.project.key}-1`);
    await dialog.getByLabel('Assignee').selectOption({ label: 'Grace Hopper' });
    await dialog.getByLabel('backend').check();
    await dialog.getByRole('button', { name: 'Create ticket' }).click();
    await dialog.waitFor({ state: 'detached' });
    const t = await ticket(s, 2);
    expect(t).toMatchObject({
      title: 'Cache the avatars',
      storyPoints: 5,
      sprintId: sprint.id,
      startDate: '2026-12-01',
      dueDate: '2026-12-11',
      parentId: (await ticket(s, 1)).id,
      assigneeId: client.userId,
      labelIds: [label.id],
    });

    // An unknown parent is named, and nothing is created.
    await page.keyboard.press('c');
    await dialog.getByLabel('Title').fill('Orphan');
    await dialog.getByLabel('Parent (ticket key, optional)').fill(`${s.project.key}-99`);
    await dialog.getByRole('button', { name: 'Create ticket' }).click();
    await dialog.getByRole('alert').getByText(`no ticket ${s.project.key}-99`).waitFor();
    expect((await client.req('GET', `/api/projects/${s.project.id}/tickets`)).length).toBe(2);
  });
});

describe('filters in the address', () => {
  it('writes the board filters into the address, keeps them on reload and applies a shared link', async () => {
    const s = await seed(0, 0);
    await client.req('POST', `/api/projects/${s.project.id}/tickets`, {
      title: 'A bug',
      type: 'Bug',
      priority: 'High',
    });
    await client.req('POST', `/api/projects/${s.project.id}/tickets`, { title: 'A task', type: 'Task' });
    const page = await openBoard(s);
    const shown = () => page.getByTestId('card-title').allTextContents();
    await expect.poll(shown).toEqual(['A bug', 'A task']);
    await pickFilter(page, 'Type', ['Bug']);
    await expect.poll(() => new URL(page.url()).searchParams.get('type')).toBe('Bug');
    await expect.poll(shown).toEqual(['A bug']);
    await page.reload();
    await page.getByTestId('card-title').first().waitFor();
    await expect.poll(shown).toEqual(['A bug']);
    expect(await filterChips(page, 'Type')).toEqual(['Bug']);

    // A link someone shared, opened in another browser.
    const other = await openPage(browser, base, client, { width: 1440, height: 900 });
    await other.goto(`${base}/projects/${s.project.key}?priority=Medium`);
    await other.getByTestId('card-title').first().waitFor();
    await expect.poll(() => other.getByTestId('card-title').allTextContents()).toEqual(['A task']);
    expect(await filterChips(other, 'Priority')).toEqual(['Medium']);

    // "Me" is whoever opens the link.
    await client.req('POST', `/api/projects/${s.project.id}/tickets`, {
      title: 'Mine',
      assigneeId: client.userId,
    });
    await other.goto(`${base}/projects/${s.project.key}?assignee=me`);
    await expect.poll(() => other.getByTestId('card-title').allTextContents()).toEqual(['Mine']);
    expect(await filterChips(other, 'Assignee')).toEqual(['Me']);

    // Cleared filters leave the address clean.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => new URL(page.url()).search).toBe('');
  });
});
