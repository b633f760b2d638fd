import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  openPage,
  type Server,
  screenshot,
  settled,
  startSuite,
  stopSuite,
  uniqueKey,
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
});

afterAll(() => stopSuite({ server, browser }));

/** The browser's own today (the timeline draws from it), as the page computes it. */
const localDay = (page: Page) =>
  page.evaluate(() => {
    const d = new Date();
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  });
function plus(day: string, n: number) {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/**
 * A project with two epics: "Checkout" (4 children: 2 done, 8 of 13 points done) and "Search"
 * (one open child), plus two tickets of no epic; all dated around `today`.
 */
async function seed(client: ApiClient & { userId: string }, today: string) {
  const key = uniqueKey('PL');
  const project = await client.req('POST', '/api/projects', { name: 'Planning Lab', key });
  const columns: { id: string; name: string }[] = await client.req(
    'GET',
    `/api/projects/${project.id}/columns`,
  );
  const done = columns[columns.length - 1];
  const P = `/api/projects/${project.id}/tickets`;
  const t = (body: Record<string, unknown>) => client.req('POST', P, body);
  const checkout = await t({
    title: 'Checkout',
    type: 'Epic',
    startDate: plus(today, -10),
    dueDate: plus(today, 20),
    assigneeId: client.userId,
  });
  const search = await t({
    title: 'Search',
    type: 'Epic',
    startDate: plus(today, 5),
    dueDate: plus(today, 40),
  });
  const pay = await t({
    title: 'Card payments',
    parentId: checkout.id,
    storyPoints: 5,
    columnId: done.id,
    startDate: plus(today, -10),
    dueDate: plus(today, -2),
  });
  await t({
    title: 'Receipts',
    parentId: checkout.id,
    storyPoints: 3,
    columnId: done.id,
    startDate: plus(today, -6),
    dueDate: plus(today, 1),
  });
  const refunds = await t({
    title: 'Refunds',
    parentId: checkout.id,
    storyPoints: 5,
    startDate: plus(today, 2),
    dueDate: plus(today, 9),
  });
  await t({ title: 'Coupons', parentId: checkout.id, dueDate: plus(today, 15) });
  await t({
    title: 'Index tickets',
    parentId: search.id,
    storyPoints: 8,
    startDate: plus(today, 6),
    dueDate: plus(today, 18),
  });
  await t({ title: 'Fix the logo', storyPoints: 1, dueDate: plus(today, 3) });
  await t({ title: 'Update the docs', storyPoints: 2, startDate: plus(today, -3), dueDate: plus(today, 4) });
  return { project, checkout, search, pay, refunds };
}

const ticketOf = (client: ApiClient, projectId: string, id: string) =>
  client.req('GET', `/api/projects/${projectId}/tickets/${id}`);

describe('planning pages', () => {
  it('shows each epic’s progress by count and points, its children, and a New epic button', async () => {
    const user = await ApiClient.signUp(base, undefined, 'Pat Planner');
    const page = await openPage(browser, base, user);
    await page.goto(base);
    const s = await seed(user, await localDay(page));
    await page.goto(`${base}/projects/${s.project.key}/epics`);
    const epics = page.getByRole('list', { name: 'Epics' });
    await epics.getByText('Checkout').waitFor();
    const count = page.getByRole('progressbar', { name: `${s.checkout.key} tickets done` });
    await expect.poll(() => count.getAttribute('aria-valuetext')).toBe('2 of 4 tickets');
    expect(await count.getAttribute('aria-valuenow')).toBe('50');
    const points = page.getByRole('progressbar', { name: `${s.checkout.key} points done` });
    expect(await points.getAttribute('aria-valuetext')).toBe('8 of 13 pts');
    expect(
      await page
        .getByRole('progressbar', { name: `${s.search.key} tickets done` })
        .getAttribute('aria-valuetext'),
    ).toBe('0 of 1 tickets');
    expect(
      await page.getByRole('progressbar', { name: 'Points of no epic done' }).getAttribute('aria-valuetext'),
    ).toBe('0 of 3 pts');

    // Expand: the children, from the ticket list filtered by parent; one opens in the drawer.
    await page.getByRole('button', { name: `Show the children of ${s.checkout.key}` }).click();
    const children = page.getByRole('list', { name: `Children of ${s.checkout.key}` });
    await children.getByText('Refunds').waitFor();
    expect(await children.getByRole('listitem').count()).toBe(4);
    await settled(page);
    await screenshot(page, 'epics-light');
    await children.getByRole('button', { name: /Refunds/ }).click();
    await page.getByRole('dialog').getByText(s.refunds.key).first().waitFor();
    await page.keyboard.press('Escape');

    // A live change: another ticket of the epic gets done elsewhere, the bar follows.
    const columns = await user.req('GET', `/api/projects/${s.project.id}/columns`);
    await user.req('PATCH', `/api/projects/${s.project.id}/tickets/${s.refunds.id}`, {
      columnId: columns[columns.length - 1].id,
    });
    await expect.poll(() => count.getAttribute('aria-valuetext'), { timeout: 10_000 }).toBe('3 of 4 tickets');
    expect(await points.getAttribute('aria-valuetext')).toBe('13 of 13 pts');

    await page.getByRole('button', { name: 'New epic' }).first().click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByLabel('Type').inputValue()).toBe('Epic');
    await dialog.getByLabel('Title').fill('Onboarding');
    await dialog.getByRole('button', { name: /Create/ }).click();
    await epics.getByText('Onboarding').waitFor();

    const dark = await openPage(browser, base, user, { theme: 'dark' });
    await dark.goto(`${base}/projects/${s.project.key}/epics`);
    await dark.getByRole('list', { name: 'Epics' }).getByText('Onboarding').waitFor();
    await settled(dark);
    await screenshot(dark, 'epics-dark');
    const phone = await openPage(browser, base, user, { width: 390, height: 800 });
    await phone.goto(`${base}/projects/${s.project.key}/epics`);
    await phone.getByRole('list', { name: 'Epics' }).getByText('Checkout').waitFor();
    await settled(phone);
    await screenshot(phone, 'epics-phone');
  });

  it('moves a bar by dragging and by keyboard, each a ticket update', async () => {
    const user = await ApiClient.signUp(base, undefined, 'Tim Line');
    const page = await openPage(browser, base, user);
    await page.goto(base);
    const today = await localDay(page);
    const s = await seed(user, today);
    await page.goto(`${base}/projects/${s.project.key}/timeline`);
    await page.getByTestId('today-line').waitFor();
    const bar = page.locator(`[data-ticket="${s.refunds.key}"]`);
    await bar.waitFor();
    await settled(page);
    await screenshot(page, 'timeline-light');

    // Drag the whole bar three days later (a day is 28 px in the weeks zoom).
    const box = (await bar.boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width / 2, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 40, y, { steps: 4 });
    await page.mouse.move(box.x + box.width / 2 + 84, y, { steps: 4 });
    await page.mouse.up();
    await expect
      .poll(async () => {
        const t = await ticketOf(user, s.project.id, s.refunds.id);
        return [t.startDate, t.dueDate];
      })
      .toEqual([plus(today, 5), plus(today, 12)]);
    expect(await page.getByRole('dialog').count()).toBe(0);

    // Drag only the end: the due date moves, the start stays.
    const after = (await bar.boundingBox())!;
    await page.mouse.move(after.x + after.width - 3, y);
    await page.mouse.down();
    await page.mouse.move(after.x + after.width - 3 + 56, y, { steps: 6 });
    await page.mouse.up();
    await expect
      .poll(async () => {
        const t = await ticketOf(user, s.project.id, s.refunds.id);
        return [t.startDate, t.dueDate];
      })
      .toEqual([plus(today, 5), plus(today, 14)]);

    // Keyboard: Right moves a day, Shift+Left pulls the due date in, Alt+Right pushes the start out.
    await bar.focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(async () => (await ticketOf(user, s.project.id, s.refunds.id)).startDate)
      .toBe(plus(today, 6));
    await page.keyboard.press('Shift+ArrowLeft');
    await expect
      .poll(async () => (await ticketOf(user, s.project.id, s.refunds.id)).dueDate)
      .toBe(plus(today, 14));
    await page.keyboard.press('Alt+ArrowRight');
    await expect
      .poll(async () => {
        const t = await ticketOf(user, s.project.id, s.refunds.id);
        return [t.startDate, t.dueDate];
      })
      .toEqual([plus(today, 7), plus(today, 14)]);
    expect(await bar.getAttribute('aria-label')).toContain('Refunds');
    // Presses faster than the server answers: each starts from the last one's days, none is lost.
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await expect
      .poll(async () => {
        const t = await ticketOf(user, s.project.id, s.refunds.id);
        return [t.startDate, t.dueDate];
      })
      .toEqual([plus(today, 10), plus(today, 17)]);

    // A change made elsewhere arrives live; collapsing an epic hides its tickets.
    await user.req('PATCH', `/api/projects/${s.project.id}/tickets/${s.pay.id}`, { dueDate: plus(today, 0) });
    await expect
      .poll(() => page.locator(`[data-ticket="${s.pay.key}"]`).getAttribute('aria-label'), {
        timeout: 10_000,
      })
      .toContain('Card payments');
    await page.getByRole('button', { name: `Hide the tickets of ${s.search.key} Search` }).click();
    await expect.poll(() => page.getByText('Index tickets').count()).toBe(0);

    // The months zoom: a day is 6 px, so the 8-day bar is 48 px wide; back to weeks, 224 px.
    await page.getByRole('button', { name: 'Months' }).click();
    await expect.poll(async () => Math.round((await bar.boundingBox())?.width ?? 0)).toBe(48);
    await page.getByRole('button', { name: 'Weeks' }).click();
    await expect.poll(async () => Math.round((await bar.boundingBox())?.width ?? 0)).toBe(224);

    // The keys are listed under ?.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.getByText('On a timeline bar: change the due date').waitFor();
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });

    // A click (no drag) opens the ticket.
    await page.locator(`[data-ticket="${s.pay.key}"]`).click();
    await page.getByRole('dialog').getByText(s.pay.key).first().waitFor();
    await page.keyboard.press('Escape');

    const dark = await openPage(browser, base, user, { theme: 'dark' });
    await dark.goto(`${base}/projects/${s.project.key}/timeline`);
    await dark.locator(`[data-ticket="${s.refunds.key}"]`).waitFor();
    await settled(dark);
    await screenshot(dark, 'timeline-dark');
    const phone = await openPage(browser, base, user, { width: 390, height: 800 });
    await phone.goto(`${base}/projects/${s.project.key}/timeline`);
    await phone.locator(`[data-ticket="${s.refunds.key}"]`).waitFor();
    await settled(phone);
    await screenshot(phone, 'timeline-phone');
  });
});
