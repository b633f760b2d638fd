import type { Browser, Page } from 'playwright-core';
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
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;
let user: ApiClient & { username: string; userId: string };
let page: Page;
let key: string;

beforeAll(async () => {
  server = await startServer({ DOCKET_ADMIN_USERNAME: 'root', DOCKET_ADMIN_PASSWORD: PASSWORD });
  base = server.baseUrl;
  browser = await launchBrowser();
  user = await ApiClient.signUp(base, unique('srch'), 'Sam Searcher');
  key = `S${Date.now().toString(36).slice(-5).toUpperCase()}`;
  const project = await user.req('POST', '/api/projects', { name: 'Search demo', key });
  const other = await user.req('POST', '/api/projects', { name: 'Other demo', key: `${key}X` });
  const titles: [string, string, string, string | null][] = [
    ['Login page crashes on submit', 'Bug', 'Critical', user.userId],
    ['Signup flow redesign', 'Story', 'Medium', null],
    ['Crash reporter upload', 'Task', 'High', user.userId],
    ['Document the login endpoints', 'Task', 'Low', null],
  ];
  for (const [title, type, priority, assigneeId] of titles)
    await user.req('POST', `/api/projects/${project.id}/tickets`, { title, type, priority, assigneeId });
  await user.req('POST', `/api/projects/${other.id}/tickets`, {
    title: 'Crash on the other side',
    type: 'Bug',
  });
  page = await openPage(browser, base, user, { theme: 'light' });
});

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
});

const rows = () => page.getByTestId('search-results').locator('tbody tr[id^="search-row-"]');
const keysShown = async () => rows().locator('td:nth-child(2)').allTextContents();

describe('search page', () => {
  it('shows results as you type, across projects, and opens one with the keyboard', async () => {
    await page.goto(`${base}/search`);
    const input = page.getByTestId('search-input');
    await input.fill('crash');
    await expect.poll(keysShown).toHaveLength(3);
    expect(await page.getByTestId('search-total').textContent()).toBe('3 tickets');
    await input.fill('crash type:bug');
    await expect.poll(async () => (await keysShown()).sort()).toEqual([`${key}-1`, `${key}X-1`].sort());
    await input.press('ArrowDown');
    const second = (await keysShown())[1];
    await input.press('Enter');
    await page.waitForURL(new RegExp(`/projects/${second.replace(/-\d+$/, '')}/${second}$`));
  });

  it('explains a malformed query', async () => {
    await page.goto(`${base}/search?q=${encodeURIComponent('crash colour:red')}`);
    await expect
      .poll(() => page.getByTestId('search-problem').textContent())
      .toMatch(/Unknown field 'colour'.*known fields/);
  });

  it('sorts by a header, chooses columns, groups, and saves the view to the sidebar', async () => {
    await page.goto(`${base}/search?q=${encodeURIComponent(`project:${key}`)}`);
    await expect.poll(keysShown).toHaveLength(4);
    await page.getByRole('button', { name: /^Priority/ }).click();
    await expect
      .poll(() => page.getByTestId('search-input').inputValue())
      .toBe(`project:${key} sort:priority-desc`);
    await expect.poll(keysShown).toEqual([`${key}-1`, `${key}-3`, `${key}-2`, `${key}-4`]);
    await page.getByRole('button', { name: /^Priority/ }).click();
    await expect.poll(keysShown).toEqual([`${key}-4`, `${key}-2`, `${key}-3`, `${key}-1`]);
    await page.getByRole('button', { name: 'Columns' }).click();
    await page.getByLabel('Type', { exact: true }).check();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('columnheader', { name: 'Type' }).count()).toBe(1);
    await page.getByLabel('Group by').selectOption('assignee');
    await page.getByRole('rowheader', { name: /Unassigned/ }).waitFor();
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByLabel('Name').fill('Demo by assignee');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const link = page.getByTestId('sidebar-views').getByRole('link', { name: 'Demo by assignee' });
    await link.waitFor();
    const views = await user.req('GET', '/api/views');
    expect(views[0]).toMatchObject({
      name: 'Demo by assignee',
      query: `project:${key} sort:priority-asc`,
      groupBy: 'assignee',
      columns: ['key', 'title', 'type', 'priority', 'status', 'assignee', 'updated'],
    });
    await page.waitForTimeout(200);
    await screenshot(page, 'search-list-view-light');
    // Opening the view elsewhere brings back its query and layout.
    await page.goto(`${base}/`);
    await page.getByTestId('sidebar-views').getByRole('link', { name: 'Demo by assignee' }).click();
    await expect
      .poll(() => page.getByTestId('search-input').inputValue())
      .toBe(`project:${key} sort:priority-asc`);
    await page.getByRole('rowheader', { name: /Unassigned/ }).waitFor();
  });
});

describe('list view edits', () => {
  it('changes a priority inline and several tickets at once', async () => {
    await page.goto(`${base}/search?q=${encodeURIComponent(`project:${key} sort:key`)}`);
    await expect.poll(keysShown).toEqual([`${key}-1`, `${key}-2`, `${key}-3`, `${key}-4`]);
    await page.getByLabel(`Priority of ${key}-2`).selectOption('Highest');
    const ticket = async (n: number) => user.req('GET', `/api/projects/${key}/tickets/${key}-${n}`);
    await expect.poll(async () => (await ticket(2)).priority).toBe('Highest');
    await page.getByLabel(`Select ${key}-3`).check();
    await page.getByLabel(`Select ${key}-4`).check();
    await page.getByTestId('bulk-bar').getByText('2 selected').waitFor();
    await page.getByLabel('Set priority of the selected').selectOption('Lowest');
    await expect
      .poll(async () => [(await ticket(3)).priority, (await ticket(4)).priority])
      .toEqual(['Lowest', 'Lowest']);
    await page.getByRole('button', { name: 'Unassign' }).click();
    await expect.poll(async () => (await ticket(3)).assigneeId).toBeNull();
    await expect.poll(() => page.getByLabel(`Priority of ${key}-3`).inputValue()).toBe('Lowest');
  });
});

describe('views on the board and the backlog', () => {
  it('shows only the tickets a saved view finds', async () => {
    await user.req('POST', '/api/views', { name: 'Only bugs', query: 'type:bug' });
    await page.goto(`${base}/projects/${key}`);
    await expect.poll(() => page.getByTestId('card-key').count()).toBe(4);
    await page.getByLabel('View', { exact: true }).selectOption({ label: 'Only bugs' });
    await expect.poll(() => page.getByTestId('card-key').allTextContents()).toEqual([`${key}-1`]);
    await page.goto(`${base}/projects/${key}/backlog`);
    await expect.poll(() => page.getByTestId('backlog-row').count()).toBe(4);
    await page.getByLabel('View', { exact: true }).selectOption({ label: 'Only bugs' });
    await expect.poll(() => page.getByTestId('backlog-row').count()).toBe(1);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.getByTestId('backlog-row').count()).toBe(4);
  });
});

describe('command palette', () => {
  it('finds tickets by text through the search endpoint and opens the search page', async () => {
    await page.goto(`${base}/`);
    // The shortcut listens once the app has loaded.
    await settled(page);
    await page.keyboard.press('Control+k');
    const box = page.getByRole('combobox', { name: 'Search projects, tickets and actions' });
    await box.fill('redesign');
    const option = page.getByRole('option', { name: new RegExp(`Signup flow redesign.*${key}-2`) });
    await option.waitFor();
    await page.waitForTimeout(150);
    await screenshot(page, 'search-palette-light');
    // Keyboard: the ticket is the first option; Enter opens it.
    await box.press('Enter');
    await page.waitForURL(`${base}/projects/${key}/${key}-2`);
    await page.getByTestId('drawer-key').getByText(`${key}-2`).waitFor();
    await page.goto(`${base}/`);
    await page.getByTestId('current-user').waitFor();
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Search projects, tickets and actions' }).fill('login');
    await page.getByRole('option', { name: /Search for “login” \(2\)/ }).click();
    await page.waitForURL(`${base}/search?q=login`);
    await expect.poll(keysShown).toHaveLength(2);
  });
});
