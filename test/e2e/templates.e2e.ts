/** Ticket templates in the browser (issue 23, docs/decisions/050-ticket-templates.md). */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  type newContext,
  openPage,
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

const open = (client: ApiClient, opts: Parameters<typeof newContext>[1] = {}) =>
  openPage(browser, base, client, opts);
const section = (page: Page, name: string) => page.getByRole('region', { name });

interface Tpl {
  id: string;
  name: string;
  isDefault: boolean;
  position: number;
  description: string | null;
}

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
});

afterAll(() => stopSuite({ server, browser }));

describe('ticket templates', () => {
  it('an admin creates templates in settings; a member creates a ticket from one, keeping what they typed', async () => {
    const owner = await ApiClient.signUp(base, unique('olga'), 'Olga Owner');
    const mia = await ApiClient.signUp(base, unique('mia'), 'Mia Member');
    const key = uniqueKey('T');
    const project = await owner.req('POST', '/api/projects', { name: 'Template Lab', key, color: '#0EA5E9' });
    await owner.req('POST', `/api/projects/${project.id}/members`, { userId: mia.userId, role: 'member' });
    for (const [name, color] of [
      ['bug', '#EF4444'],
      ['customer', '#10B981'],
    ])
      await owner.req('POST', `/api/projects/${project.id}/labels`, { name, color });
    await owner.req('POST', `/api/projects/${project.id}/templates`, {
      name: 'Chore',
      about: 'Upkeep nobody sees',
      type: 'Task',
      priority: 'Low',
      storyPoints: 1,
    });
    const list = () => owner.req<Tpl[]>('GET', `/api/projects/${project.id}/templates`);

    // The admin adds a template with the form and the Markdown editor.
    const page = await open(owner, { height: 1600 });
    await page.goto(`${base}/projects/${project.key}/settings`);
    const templates = section(page, 'Ticket templates');
    await templates.getByTestId('template-row').first().waitFor();
    await templates.getByRole('button', { name: 'Add template' }).click();
    const editor = templates.getByRole('region', { name: 'New template' });
    await editor.getByLabel('Template name').fill('Bug report');
    await editor.getByLabel('What it is for (optional)').fill('Something is broken');
    await editor.getByLabel('Title starts with (optional)').fill('Bug: ');
    await editor.getByLabel('Ticket type').selectOption('Bug');
    await editor.getByLabel('Ticket priority').selectOption('High');
    await editor.getByRole('checkbox', { name: 'bug' }).check();
    await editor.getByRole('checkbox', { name: 'Default for new tickets' }).check();
    await editor
      .getByTestId('template-description')
      .fill('## Steps to reproduce\n\n## Expected\n\n## Actual');
    await editor.getByRole('button', { name: 'Add template' }).click();
    await templates.getByText('Default', { exact: true }).waitFor();
    await expect
      .poll(async () => (await list()).map((t) => [t.name, t.isDefault]))
      .toEqual([
        ['Chore', false],
        ['Bug report', true],
      ]);
    // Reorder with the buttons: the default first.
    await templates.getByRole('button', { name: 'Move template Bug report up' }).click();
    await expect.poll(async () => (await list()).map((t) => t.name)).toEqual(['Bug report', 'Chore']);
    await settled(page);
    await expect
      .poll(() => templates.getByTestId('template-row').first().textContent())
      .toContain('Bug report');

    // The member's New-ticket dialog preselects the default and fills the form from it.
    const member = await open(mia, { height: 1000 });
    await member.goto(`${base}/projects/${project.key}`);
    await member.getByRole('button', { name: 'New ticket' }).click();
    const dialog = member.getByRole('dialog', { name: 'New ticket' });
    const picker = dialog.getByLabel('Template');
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('Bug: ');
    expect(await picker.locator('option:checked').textContent()).toBe('Bug report (default)');
    expect(await dialog.getByLabel('Type').inputValue()).toBe('Bug');
    expect(await dialog.getByLabel('Priority').inputValue()).toBe('High');
    expect(await dialog.getByRole('checkbox', { name: 'bug' }).isChecked()).toBe(true);
    // What the member changes stays when they switch templates; the rest follows the template.
    await dialog.getByLabel('Title').fill('Bug: export to CSV fails');
    await dialog.getByLabel('Priority').selectOption('Highest');
    await picker.selectOption({ label: 'Chore' });
    expect(await dialog.getByLabel('Type').inputValue()).toBe('Task');
    expect(await dialog.getByLabel('Story points').inputValue()).toBe('1');
    expect(await dialog.getByLabel('Priority').inputValue()).toBe('Highest');
    expect(await dialog.getByLabel('Title').inputValue()).toBe('Bug: export to CSV fails');
    expect(await dialog.getByRole('checkbox', { name: 'bug' }).isChecked()).toBe(false);
    await picker.selectOption({ label: 'Bug report (default)' });
    expect(await dialog.getByLabel('Type').inputValue()).toBe('Bug');
    expect(await dialog.getByLabel('Story points').inputValue()).toBe('');
    for (const theme of ['light', 'dark'] as const) {
      await member.emulateMedia({ colorScheme: theme });
      await settled(member);
      await screenshot(member, `templates-new-ticket-${theme}`);
    }
    await dialog.getByRole('button', { name: 'Create ticket' }).click();
    await dialog.waitFor({ state: 'detached' });
    const tickets = await mia.req<{ key: string }[]>('GET', `/api/projects/${project.id}/tickets`);
    const created = await mia.req('GET', `/api/projects/${project.id}/tickets/${tickets[0].key}`);
    expect(created).toMatchObject({
      title: 'Bug: export to CSV fails',
      type: 'Bug',
      priority: 'Highest',
      description: '## Steps to reproduce\n\n## Expected\n\n## Actual',
      storyPoints: null,
    });
    expect(created.labels.map((l: { name: string }) => l.name)).toEqual(['bug']);

    // The settings section in both themes, then a delete through the app's confirm dialog.
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await templates.scrollIntoViewIfNeeded();
      await page.mouse.move(0, 0);
      await settled(page);
      await screenshot(page, `templates-settings-${theme}`);
      // Editing one: the form with the Markdown editor.
      await templates.getByRole('button', { name: 'Edit template Bug report' }).click();
      const edit = templates.getByRole('region', { name: 'Edit template Bug report' });
      expect(await edit.getByTestId('template-description').inputValue()).toContain('## Expected');
      await edit.scrollIntoViewIfNeeded();
      await settled(page);
      await screenshot(page, `templates-editor-${theme}`);
      await edit.getByRole('button', { name: 'Cancel' }).click();
      await edit.waitFor({ state: 'detached' });
    }
    await templates.getByRole('button', { name: 'Delete template Chore' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete template Chore?' });
    await confirm.getByRole('button', { name: 'Delete template' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(async () => (await list()).map((t) => t.name)).toEqual(['Bug report']);
    await expect.poll(() => templates.getByTestId('template-row').count()).toBe(1);
  });

  it('members see the templates but no controls to change them', async () => {
    const owner = await ApiClient.signUp(base, unique('olga'));
    const mia = await ApiClient.signUp(base, unique('mia'));
    const key = uniqueKey('M');
    const project = await owner.req('POST', '/api/projects', { name: 'Read only', key });
    await owner.req('POST', `/api/projects/${project.id}/members`, { userId: mia.userId, role: 'member' });
    await owner.req('POST', `/api/projects/${project.id}/templates`, { name: 'Story', type: 'Story' });
    const page = await open(mia);
    await page.goto(`${base}/projects/${project.key}/settings`);
    const templates = section(page, 'Ticket templates');
    await templates.getByText('Story').first().waitFor();
    expect(await templates.getByRole('button').count()).toBe(0);
  });
});
