import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  closeContexts,
  launchBrowser,
  openPage,
  type Server,
  startServer,
  unique,
  uniqueKey,
} from './harness.js';

let server: Server;
let browser: Browser;
let admin: ApiClient;
let page: Page;
let project: { id: string; key: string };

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  admin = await ApiClient.signUp(server.baseUrl, unique('admin'));
  const key = uniqueKey('D');
  project = await admin.req('POST', '/api/projects', { name: 'Dialogs', key });
  await admin.req('POST', `/api/projects/${project.id}/labels`, { name: 'frontend' });
  page = await openPage(browser, server.baseUrl, admin);
});
afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
});

/** Whether the focused element is inside the open dialog. */
const focusInDialog = (p: Page) =>
  p.evaluate(() => {
    const dialog = document.querySelector('[role="dialog"]');
    return !!dialog && dialog.contains(document.activeElement);
  });

/** Presses Tab (or Shift+Tab) `times` times and returns how often focus was outside the dialog. */
async function tabAround(p: Page, times: number, key = 'Tab') {
  let outside = 0;
  for (let i = 0; i < times; i++) {
    await p.keyboard.press(key);
    if (!(await focusInDialog(p))) outside++;
  }
  return outside;
}

describe('modal dialogs keep focus until they close', () => {
  it('the New-ticket dialog: Tab and Shift+Tab stay inside, Escape closes and focus returns to the opener', async () => {
    await page.goto(`${server.baseUrl}/projects/${project.key}`);
    const opener = page.getByRole('button', { name: 'New ticket' });
    const box = await opener.boundingBox();
    expect(box).not.toBeNull();
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'New ticket' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Title').evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await tabAround(page, 20)).toBe(0);
    expect(await tabAround(page, 20, 'Shift+Tab')).toBe(0);
    // The page behind is inert: hidden from assistive technology (no button of the page is found by
    // role), and the pointer reaches the overlay, not the button under it.
    expect(await page.getByRole('button', { name: 'New ticket' }).count()).toBe(0);
    const hit = await page.evaluate(({ x, y }) => !!document.elementFromPoint(x, y)?.closest('#root'), {
      x: box!.x + box!.width / 2,
      y: box!.y + box!.height / 2,
    });
    expect(hit).toBe(false);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
    // Escape closed the dialog only, not the page under it.
    expect(page.url()).toContain(`/projects/${project.key}`);
  });

  it('a confirmation dialog: focus trapped, Escape closes it and returns to the button that opened it', async () => {
    await page.goto(`${server.baseUrl}/projects/${project.key}/settings`);
    const opener = page.getByRole('button', { name: 'Delete label frontend' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Delete label frontend?' });
    await dialog.waitFor();
    expect(await tabAround(page, 20)).toBe(0);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
    // Nothing was deleted.
    const labels = await admin.req<{ name: string }[]>('GET', `/api/projects/${project.id}/labels`);
    expect(labels.map((l) => l.name)).toEqual(['frontend']);
  });
});
