import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  closeContexts,
  launchBrowser,
  openPage,
  PASSWORD,
  type Server,
  screenshot,
  settled,
  startServer,
  unique,
  uniqueKey,
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;

beforeAll(async () => {
  server = await startServer({ DOCKET_ADMIN_USERNAME: 'root', DOCKET_ADMIN_PASSWORD: PASSWORD });
  base = server.baseUrl;
  browser = await launchBrowser();
});

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
});

async function projectWith(owner: ApiClient, ...members: { userId: string }[]) {
  const key = uniqueKey('N');
  const p = await owner.req('POST', '/api/projects', { name: 'Notify', key });
  for (const m of members) await owner.req('POST', `/api/projects/${p.id}/members`, { userId: m.userId });
  return p as { id: string; key: string };
}

describe('notifications in the web app', () => {
  it('the unread badge updates live; the inbox lists unread first, marks read, filters and opens the ticket', async () => {
    const owner = await ApiClient.signUp(base, undefined, 'Olivia Owner');
    const ann = await ApiClient.signUp(base, undefined, 'Ann Example');
    const page = await openPage(browser, base, ann);
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Inbox' }).waitFor();
    expect(await page.getByTestId('inbox-badge').count()).toBe(0);
    await page.waitForFunction(() => document.documentElement.dataset.streams?.includes('/api/users/events'));

    // Changes made by someone else arrive on the badge without a reload.
    const p = await projectWith(owner, ann);
    await expect.poll(() => page.getByTestId('inbox-badge').textContent(), { timeout: 10_000 }).toBe('1');
    const ticket = await owner.req('POST', `/api/projects/${p.id}/tickets`, {
      title: 'Fix the login form',
      assigneeId: ann.userId,
    });
    const other = await owner.req('POST', `/api/projects/${p.id}/tickets`, { title: 'Write release notes' });
    await owner.req('POST', `/api/projects/${p.id}/tickets/${other.id}/comments`, {
      content: `@${ann.username} could you review this?`,
    });
    await expect.poll(() => page.getByTestId('inbox-badge').textContent(), { timeout: 10_000 }).toBe('3');

    await page.getByRole('link', { name: /Inbox/ }).click();
    const unread = page.getByRole('region', { name: 'Unread' }).getByTestId('notification');
    await expect.poll(() => unread.count()).toBe(3);
    await expect.poll(() => unread.first().textContent()).toContain('mentioned you');
    await screenshot(page, 'inbox');

    // Filter by type.
    await page.getByRole('button', { name: 'Assigned', exact: true }).click();
    await expect.poll(() => page.getByTestId('notification').count()).toBe(1);
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await expect.poll(() => page.getByTestId('notification').count()).toBe(3);

    // Mark one read: it moves to Earlier and the badge counts down.
    await page.getByRole('button', { name: /Mark read: Olivia Owner added you/ }).click();
    await expect.poll(() => page.getByTestId('inbox-badge').textContent()).toBe('2');
    await expect
      .poll(() => page.getByRole('region', { name: 'Earlier' }).getByTestId('notification').count())
      .toBe(1);

    // Opening one marks it read and shows the ticket.
    await page.getByRole('button', { name: /^Olivia Owner assigned you/ }).click();
    await page.waitForURL(new RegExp(`/projects/${p.key}/${ticket.key}$`));
    await expect.poll(() => page.getByTestId('inbox-badge').textContent()).toBe('1');
    const listed = await ann.req('GET', '/api/me/notifications?unread=true');
    expect(listed.items.map((n: { type: string }) => n.type)).toEqual(['mentioned']);

    // Mark all read from the inbox (back to it by its address: the ticket's drawer covers the page).
    await page.goto(`${base}/inbox`);
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await expect.poll(() => page.getByTestId('inbox-badge').count()).toBe(0);
    expect((await ann.req('GET', '/api/me/notifications')).unreadCount).toBe(0);
  });

  it('offers project members as you type @, by keyboard, and renders the mention as a link to the person', async () => {
    const owner = await ApiClient.signUp(base, undefined, 'Olga Owner');
    const bob = await ApiClient.signUp(base, unique('bob'), 'Bob Builder');
    const bella = await ApiClient.signUp(base, unique('bella'), 'Bella Baker');
    const stranger = await ApiClient.signUp(base, unique('bo'), 'Bo Stranger');
    const p = await projectWith(owner, bob, bella);
    const ticket = await owner.req('POST', `/api/projects/${p.id}/tickets`, { title: 'Discuss the plan' });
    const page = await openPage(browser, base, owner);
    await page.goto(`${base}/projects/${p.key}/${ticket.key}`);
    const input = page.getByTestId('comment-input');
    await input.click();
    await input.pressSequentially('Thanks @b');
    const list = page.getByTestId('mention-list');
    await list.waitFor();
    const options = list.getByRole('option');
    // Members only: Bob and Bella, not the stranger.
    await expect.poll(() => options.count()).toBe(2);
    expect(await list.textContent()).not.toContain(stranger.username);
    expect(await input.getAttribute('aria-controls')).toBe(await list.getAttribute('id'));
    await screenshot(page, 'mention-autocomplete');
    await input.pressSequentially('e');
    await expect.poll(() => options.count()).toBe(1);
    await expect.poll(() => options.first().getAttribute('aria-selected')).toBe('true');
    expect(await input.getAttribute('aria-activedescendant')).toBe(await options.first().getAttribute('id'));
    // Escape closes only the list; Backspace and a new letter bring it back.
    await page.keyboard.press('Escape');
    await expect.poll(() => list.count()).toBe(0);
    await page.keyboard.press('Backspace');
    await expect.poll(() => options.count()).toBe(2);
    await page.keyboard.press('ArrowDown');
    const second = await options.nth(1).textContent();
    await expect.poll(() => options.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    const chosen = second?.includes(bob.username) ? bob : bella;
    await expect.poll(() => input.inputValue()).toBe(`Thanks @${chosen.username} `);
    await input.pressSequentially('please look');
    await page.keyboard.press('Control+Enter');

    const mention = page.locator('a.mention', { hasText: `@${chosen.username}` });
    await mention.waitFor();
    const got = await chosen.req('GET', '/api/me/notifications?type=mentioned');
    expect(got.items).toHaveLength(1);
    expect(got.items[0].ticket.key).toBe(ticket.key);
    await mention.click();
    await page.waitForURL(new RegExp(`/people/${chosen.username}$`));
    await expect.poll(() => page.getByTestId('person').textContent()).toContain(`@${chosen.username}`);
  });

  it('the profile shows the e-mail preferences and saves them', async () => {
    const ann = await ApiClient.signUp(base, undefined, 'Ann Prefs');
    const page = await openPage(browser, base, ann);
    await page.goto(`${base}/profile`);
    const section = page.getByTestId('notification-settings');
    await section.waitFor();
    expect(await section.textContent()).toContain('does not send e-mail');
    expect(await page.getByLabel('Assignments and mentions at once, the rest in a digest').isChecked()).toBe(
      true,
    );
    await settled(page);
    // A controlled input: the change shows once the query cache has told React (a task later).
    await page.getByLabel('Everything at once').click();
    await expect.poll(() => page.getByLabel('Everything at once').isChecked()).toBe(true);
    await page.getByLabel('A comment on a ticket I report, am assigned or watch').uncheck();
    await expect
      .poll(async () => (await ann.req('GET', '/api/me/notification-settings')).types.commented)
      .toBe(false);
    const saved = await ann.req('GET', '/api/me/notification-settings');
    expect(saved.email).toBe('instant');
    await page.getByTestId('notification-settings').scrollIntoViewIfNeeded();
    await screenshot(page, 'profile-notifications');
    await page.reload();
    await page.getByTestId('notification-settings').waitFor();
    expect(await page.getByLabel('Everything at once').isChecked()).toBe(true);
  });
});
