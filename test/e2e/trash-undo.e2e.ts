/**
 * Undo and the trash (issue 23, decision 048): a deletion, a move and an edit each show a toast
 * with Undo (and Ctrl+Z) that reverses them; an undo over someone else's later change is refused
 * with a clear message; an admin restores a deleted ticket from the Trash in the project settings.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  openBoard as openBoardPage,
  openPage,
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
const seed = (cards: number) => seedBoard(client, 'Trash', cards);

const status = async (s: Seeded, n: number) =>
  (
    await fetch(`${base}/api/projects/${s.project.id}/tickets/${s.project.key}-${n}`, {
      headers: { cookie: client.cookie, accept: 'application/json' },
    })
  ).status;
const ticket = (s: Seeded, n: number) =>
  client.req('GET', `/api/projects/${s.project.key}/tickets/${s.project.key}-${n}`);

const openBoard = (s: Seeded) => openBoardPage(browser, base, client, s);

const toast = (page: Page, text: string | RegExp) => page.getByTestId('toast').filter({ hasText: text });

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
  client = await ApiClient.signUp(base, unique('own'), 'Olive Owner');
});

afterAll(() => stopSuite({ server, browser }));

describe('undo', () => {
  it('undoes a deletion: the ticket comes back with its key', async () => {
    const s = await seed(2);
    await client.req('POST', `/api/projects/${s.project.id}/tickets/${s.project.key}-1/comments`, {
      content: 'Still here after the undo',
    });
    const page = await openPage(browser, base, client, { width: 1440, height: 900 });
    await page.goto(`${base}/projects/${s.project.key}/${s.project.key}-1`);
    await page.getByTestId('drawer-key').getByText(`${s.project.key}-1`).waitFor();
    await page
      .getByTestId('ticket-drawer')
      .getByRole('button', { name: 'Delete', exact: true })
      .first()
      .click();
    await page.getByRole('button', { name: 'Delete ticket' }).click();
    await expect.poll(() => status(s, 1)).toBe(404);
    await toast(page, `Deleted ${s.project.key}-1`).getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => status(s, 1)).toBe(200);
    await toast(page, 'Restored the ticket').waitFor();
    const comments = await client.req(
      'GET',
      `/api/projects/${s.project.id}/tickets/${s.project.key}-1/comments`,
    );
    expect(JSON.stringify(comments)).toContain('Still here after the undo');
    // The board shows it again.
    await page.goto(`${base}/projects/${s.project.key}`);
    await page.locator(`[data-key="${s.project.key}-1"]`).waitFor();
  });

  it('undoes a move (keyboard, Ctrl+Z; drag, Undo): the card goes back to its column and place', async () => {
    const s = await seed(3);
    const page = await openBoard(s);
    const k2 = `${s.project.key}-2`;
    await page.locator(`[data-key="${k2}"]`).focus();
    await page.keyboard.press('s');
    await page.getByRole('menuitem', { name: 'Done' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(s.columns[2].id);
    await toast(page, `Moved ${k2}`).waitFor();
    await settled(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+z');
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(s.columns[0].id);
    expect((await ticket(s, 2)).order).toBe(1);
    await page.locator(`[data-column-name="To Do"] [data-key="${k2}"]`).waitFor();
    await settled(page);

    // Dragged with the mouse to In Progress, then Undo on the toast.
    const card = (await page.locator(`[data-key="${k2}"]`).boundingBox())!;
    const target = (await page.locator('[data-column-name="In Progress"]').boundingBox())!;
    await page.mouse.move(card.x + card.width / 2, card.y + card.height / 2);
    await page.mouse.down();
    await page.mouse.move(card.x + card.width / 2 + 12, card.y + card.height / 2, { steps: 3 });
    await page.mouse.move(target.x + target.width / 2, target.y + 60, { steps: 15 });
    await page.mouse.up();
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(s.columns[1].id);
    await toast(page, `${k2} moved to In Progress`).getByRole('button', { name: 'Undo' }).click();
    await expect.poll(async () => (await ticket(s, 2)).columnId).toBe(s.columns[0].id);
    expect((await ticket(s, 2)).order).toBe(1);
  });

  it('undoes an edit, and refuses the undo when someone else changed the ticket since', async () => {
    const s = await seed(2);
    const page = await openBoard(s);
    const k1 = `${s.project.key}-1`;
    const setPriorityUp = async () => {
      await page.locator(`[data-key="${k1}"]`).focus();
      await page.keyboard.press('p');
      await page.getByRole('menu', { name: `Set priority of ${k1}` }).waitFor();
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
    };
    await setPriorityUp();
    await expect.poll(async () => (await ticket(s, 1)).priority).toBe('High');
    await toast(page, `Updated ${k1}`).last().getByRole('button', { name: 'Undo' }).click();
    await expect.poll(async () => (await ticket(s, 1)).priority).toBe('Medium');
    await settled(page);

    // Changed again, then by someone else: the undo must not overwrite their change.
    await setPriorityUp();
    await expect.poll(async () => (await ticket(s, 1)).priority).toBe('High');
    await client.req('PATCH', `/api/projects/${s.project.id}/tickets/${k1}`, { title: 'Renamed elsewhere' });
    await toast(page, `Updated ${k1}`).last().getByRole('button', { name: 'Undo' }).click();
    await toast(page, 'The ticket was changed since').waitFor();
    expect((await ticket(s, 1)).priority).toBe('High');
  });
});

describe('the trash', () => {
  it('lists deleted tickets for an admin, restores one and deletes one forever, in both themes', async () => {
    const s = await seed(3);
    await client.req('PATCH', `/api/projects/${s.project.id}/tickets/${s.project.key}-1`, {
      title: 'Checkout fails on Safari',
      type: 'Bug',
    });
    await client.req('DELETE', `/api/projects/${s.project.id}/tickets/${s.project.key}-1`);
    await client.req('DELETE', `/api/projects/${s.project.id}/tickets`, {
      ticketIds: [`${s.project.key}-2`, `${s.project.key}-3`],
    });
    for (const theme of ['light', 'dark'] as const) {
      const page = await openPage(browser, base, client, { theme, width: 1360, height: 900 });
      await page.goto(`${base}/projects/${s.project.key}/settings#trash`);
      const trash = page.getByRole('region', { name: 'Trash' });
      await trash.getByTestId('trash-row').nth(2).waitFor();
      await trash.scrollIntoViewIfNeeded();
      await settled(page);
      await screenshot(page, `trash-${theme}`);
    }
    const page = await openPage(browser, base, client, { width: 1360, height: 900 });
    await page.goto(`${base}/projects/${s.project.key}/settings`);
    const trash = page.getByRole('region', { name: 'Trash' });
    await trash.getByRole('button', { name: `Restore ${s.project.key}-1` }).click();
    await expect.poll(() => status(s, 1)).toBe(200);
    expect((await ticket(s, 1)).title).toBe('Checkout fails on Safari');
    await expect.poll(() => trash.getByTestId('trash-row').count()).toBe(2);

    await trash.getByRole('button', { name: `Delete ${s.project.key}-2 forever` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${s.project.key}-2 forever?` });
    await dialog.getByRole('button', { name: 'Delete forever' }).click();
    await expect.poll(() => trash.getByTestId('trash-row').count()).toBe(1);
    const left = await client.req('GET', `/api/projects/${s.project.id}/trash`);
    expect(left.items.map((i: { key: string }) => i.key)).toEqual([`${s.project.key}-3`]);
  });
});
