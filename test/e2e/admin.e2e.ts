import fs from 'node:fs';
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
  startServer,
  unique,
  uniqueKey,
} from './harness.js';

/**
 * The administration page: users, system settings and the database operations, each checked
 * through the API afterwards. Destructive database tests get a server of their own.
 */

const ADMIN_ENV = { DOCKET_ADMIN_USERNAME: 'root', DOCKET_ADMIN_PASSWORD: PASSWORD };

let server: Server;
let browser: Browser;
let base: string;
let root: ApiClient;
const extraServers: Server[] = [];

async function signIn(baseUrl: string, username: string, password = PASSWORD) {
  const c = new ApiClient(baseUrl);
  await c.req('POST', '/api/auth/callback/credentials', { username, password });
  return c;
}

const open = (
  client: ApiClient,
  theme: 'light' | 'dark' = 'light',
  baseUrl = base,
  size: { width?: number; height?: number } = {},
) => openPage(browser, baseUrl, client, { theme, ...size });

/** A server of its own for tests that wipe or replace everything. */
async function freshServer() {
  const s = await startServer(ADMIN_ENV);
  extraServers.push(s);
  return { s, admin: await signIn(s.baseUrl, 'root') };
}

async function createUser(
  admin: ApiClient,
  fields: { username?: string; name?: string; email?: string; isSystemAdmin?: boolean } = {},
) {
  return admin.req('POST', '/api/admin/users', {
    username: fields.username ?? unique('u'),
    password: PASSWORD,
    confirmPassword: PASSWORD,
    ...fields,
  });
}

async function seedProject(client: ApiClient, name: string) {
  const key = uniqueKey('P');
  const project = await client.req('POST', '/api/projects', { name, key });
  await client.req('POST', `/api/projects/${project.id}/tickets`, { title: `${name} first ticket` });
  return project as { id: string; key: string; name: string };
}

const rows = (page: Page) => page.getByTestId('user-row');
const rowOf = (page: Page, username: string) =>
  page.locator(`[data-testid="user-row"][data-username="${username}"]`);
const usernames = (page: Page) =>
  rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-username')));

async function manage(page: Page, username: string) {
  await page.getByRole('button', { name: `Manage ${username}`, exact: true }).click();
  return page.getByRole('dialog', { name: `Manage ${username}` });
}

/** Polls with room for a busy machine (the default second is too short for a first page load). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });

async function quiet(page: Page) {
  await page.waitForFunction(() => document.documentElement.dataset.busy === '0');
}

beforeAll(async () => {
  server = await startServer(ADMIN_ENV);
  base = server.baseUrl;
  root = await signIn(base, 'root');
  browser = await launchBrowser();
});

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
  for (const s of extraServers) await s.stop();
});

describe('administration access', () => {
  it('shows a plain "not allowed" state to someone who is not an administrator', async () => {
    const user = await ApiClient.signUp(base, undefined, 'Plain User');
    const page = await open(user);
    await page.goto(`${base}/admin`);
    await page.getByTestId('admin-forbidden').getByText('Not allowed').waitFor();
    await page.getByText('Administration is for system administrators').waitFor();
    // No section of the page renders, and the user menu offers no way in.
    expect(await page.getByRole('navigation', { name: 'Administration' }).count()).toBe(0);
    await page.goto(`${base}/admin/database`);
    await page.getByTestId('admin-forbidden').waitFor();
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).waitFor();
    expect(await page.getByRole('menuitem', { name: 'Administration' }).count()).toBe(0);
    // The API agrees.
    await expect(user.req('GET', '/api/admin/users')).rejects.toThrow(/403.*System admin access required/);
  });

  it('opens from the user menu and switches sections', async () => {
    const page = await open(root);
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Administration' }).click();
    await page.waitForURL(`${base}/admin`);
    const nav = page.getByRole('navigation', { name: 'Administration' });
    await poll(() => nav.getByRole('link', { name: 'Users' }).getAttribute('aria-current')).toBe('page');
    await rowOf(page, 'root').waitFor();
    await nav.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`${base}/admin/settings`);
    await page.getByRole('region', { name: 'Upload limits' }).waitFor();
    await nav.getByRole('link', { name: 'Database' }).click();
    await page.waitForURL(`${base}/admin/database`);
    await page.getByRole('region', { name: 'Export' }).waitFor();
    await page.goto(`${base}/admin/nonsense`);
    await page.getByText('Page not found').waitFor();
  });
});

describe('users', () => {
  it('creates a user, refusing a wrong confirmation password in the API words', async () => {
    const page = await open(root);
    await page.goto(`${base}/admin/users`);
    await rowOf(page, 'root').waitFor();
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    const username = unique('new');
    await dialog.getByLabel('Username').fill(username);
    await dialog.getByLabel('Display name').fill('Nina Newcomer');
    await dialog.getByLabel('E-mail (optional)').fill(`${username}@example.com`);
    await dialog.getByLabel('Password for the new user').fill('Weak');
    await dialog.getByLabel('Your password').fill(PASSWORD);
    expect(await dialog.getByRole('button', { name: 'Create user' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Password for the new user').fill('Fresh-Start-2026');
    await dialog.getByLabel('System administrator').check();
    await dialog.getByLabel('Your password').fill('Not-My-Password-1');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Invalid password confirmation' }).waitFor();
    await dialog.getByLabel('Your password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rowOf(page, username).getByText('Nina Newcomer').waitFor();
    await rowOf(page, username).getByText('Administrator').waitFor();

    const [made] = await root.req('GET', `/api/admin/users?search=${username}`);
    expect(made).toMatchObject({
      username,
      name: 'Nina Newcomer',
      email: `${username}@example.com`,
      isSystemAdmin: true,
      isActive: true,
    });
    // The new account works with the password the administrator chose.
    await signIn(base, username, 'Fresh-Start-2026');
  });

  it('searches, filters and sorts the list with the API', async () => {
    const tag = unique('zq').toLowerCase();
    const a = await createUser(root, { username: `${tag}a`, name: 'Alpha Person' });
    const b = await createUser(root, { username: `${tag}b`, email: `${tag}-mail@example.com` });
    const c = await createUser(root, { username: `${tag}c`, isSystemAdmin: true });
    await root.req('PATCH', `/api/admin/users/${b.id}`, { isActive: false });

    const page = await open(root);
    await page.goto(`${base}/admin/users`);
    await rowOf(page, 'root').waitFor();
    await page.getByLabel('Search users').fill(tag);
    await poll(() => usernames(page)).toEqual([a.username, b.username, c.username]);
    await poll(() => page.getByTestId('user-count').textContent()).toBe('3 users');

    // The search also matches e-mail addresses and names.
    await page.getByLabel('Search users').fill(`${tag}-mail`);
    await poll(() => usernames(page)).toEqual([b.username]);
    await page.getByLabel('Search users').fill(tag);
    await poll(() => usernames(page)).toHaveLength(3);

    await page.getByLabel('Status').selectOption('disabled');
    await poll(() => usernames(page)).toEqual([b.username]);
    await rowOf(page, b.username).getByText('Disabled').waitFor();
    await page.getByLabel('Status').selectOption('active');
    await poll(() => usernames(page)).toEqual([a.username, c.username]);
    await page.getByLabel('Role').selectOption('admin');
    await poll(() => usernames(page)).toEqual([c.username]);
    await page.getByLabel('Role').selectOption('user');
    await poll(() => usernames(page)).toEqual([a.username]);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Role').selectOption('');

    // Column header sorting flips the order; the sort menu offers the rest.
    await page.getByRole('button', { name: 'Sort by user' }).click();
    await poll(() => usernames(page)).toEqual([c.username, b.username, a.username]);
    expect(await page.getByRole('columnheader', { name: /by user/i }).getAttribute('aria-sort')).toBe(
      'descending',
    );
    await page.getByLabel('Sort by', { exact: true }).selectOption('name:desc');
    const api = await root.req('GET', `/api/admin/users?search=${tag}&sortBy=name&sortOrder=desc`);
    await poll(() => usernames(page)).toEqual(api.map((u: { username: string }) => u.username));
    expect(api[0].username).toBe(a.username);

    await page.getByLabel('Search users').fill(`${tag}-nobody`);
    await page.getByText('No users match').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await rowOf(page, 'root').waitFor();
  });

  it('edits name and e-mail, showing the API error for a taken address', async () => {
    const taken = await createUser(root, { email: `${unique('t')}@example.com` });
    const user = await createUser(root, { name: 'Old Name' });
    const page = await open(root);
    await page.goto(`${base}/admin/users`);
    await page.getByLabel('Search users').fill(user.username);
    await poll(() => usernames(page)).toEqual([user.username]);
    const dialog = await manage(page, user.username);
    await dialog.getByLabel('Display name').fill('New Name');
    await dialog.getByLabel('E-mail').fill(taken.email);
    await dialog.getByRole('button', { name: 'Save details' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Email already registered' }).waitFor();
    expect((await root.req('GET', `/api/admin/users/${user.id}`)).name).toBe('Old Name');
    const email = `${unique('n')}@example.com`;
    await dialog.getByLabel('E-mail').fill(email);
    await dialog.getByRole('button', { name: 'Save details' }).click();
    await poll(async () => {
      const u = await root.req('GET', `/api/admin/users/${user.id}`);
      return [u.name, u.email];
    }).toEqual(['New Name', email]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await rowOf(page, user.username).getByText('New Name').waitFor();
    await rowOf(page, user.username).getByText(email).waitFor();
  });

  it('disables and enables an account, and grants and removes administrator rights', async () => {
    const user = await createUser(root);
    const page = await open(root);
    await page.goto(`${base}/admin/users`);
    await page.getByLabel('Search users').fill(user.username);
    await poll(() => usernames(page)).toEqual([user.username]);
    const dialog = await manage(page, user.username);

    await dialog.getByRole('button', { name: 'Disable account' }).click();
    const confirm = page.getByRole('dialog', { name: `Disable ${user.username}?` });
    await confirm.getByRole('button', { name: 'Disable account' }).click();
    await confirm.waitFor({ state: 'detached' });
    await dialog.getByText('Disabled: cannot sign in').waitFor();
    expect((await root.req('GET', `/api/admin/users/${user.id}`)).isActive).toBe(false);
    await expect(signIn(base, user.username)).rejects.toThrow(/403.*Account disabled/);
    await rowOf(page, user.username).getByText('Disabled').waitFor();

    await dialog.getByRole('button', { name: 'Enable account' }).click();
    await dialog.getByText('Active: can sign in').waitFor();
    expect((await root.req('GET', `/api/admin/users/${user.id}`)).isActive).toBe(true);
    await signIn(base, user.username);

    await dialog.getByRole('button', { name: 'Make administrator' }).click();
    const grant = page.getByRole('dialog', { name: `Make ${user.username} an administrator?` });
    await grant.getByRole('button', { name: 'Make administrator' }).click();
    await grant.waitFor({ state: 'detached' });
    await dialog.getByText('System administrator', { exact: true }).waitFor();
    expect((await root.req('GET', `/api/admin/users/${user.id}`)).isSystemAdmin).toBe(true);
    await rowOf(page, user.username).getByText('Administrator').waitFor();

    await dialog.getByRole('button', { name: 'Remove administrator' }).click();
    await dialog.getByText('Regular user').waitFor();
    expect((await root.req('GET', `/api/admin/users/${user.id}`)).isSystemAdmin).toBe(false);
  });

  it('deletes a user after the password confirmation', async () => {
    const user = await createUser(root, { name: 'Leaving Soon' });
    const page = await open(root);
    await page.goto(`${base}/admin/users`);
    await page.getByLabel('Search users').fill(user.username);
    await poll(() => usernames(page)).toEqual([user.username]);
    const dialog = await manage(page, user.username);
    await dialog.getByRole('button', { name: 'Delete user…' }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${user.username}?` });
    expect(await confirm.getByRole('button', { name: 'Delete user' }).isDisabled()).toBe(true);
    await confirm.getByLabel('Your password').fill('Wrong-Password-9');
    await confirm.getByRole('button', { name: 'Delete user' }).click();
    await confirm.getByRole('alert').filter({ hasText: 'Invalid password confirmation' }).waitFor();
    expect((await root.req('GET', `/api/admin/users/${user.id}`)).username).toBe(user.username);
    await confirm.getByLabel('Your password').fill(PASSWORD);
    await confirm.getByRole('button', { name: 'Delete user' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('No users match').waitFor();
    await expect(root.req('GET', `/api/admin/users/${user.id}`)).rejects.toThrow(/404.*User not found/);
  });

  it('keeps an administrator from locking themselves out, in the API words', async () => {
    const { s, admin } = await freshServer();
    const page = await open(admin, 'light', s.baseUrl);
    await page.goto(`${s.baseUrl}/admin/users`);
    const dialog = await manage(page, 'root');
    await dialog.getByText('Cannot disable your own account').waitFor();
    await dialog.getByText('Cannot delete your own account').waitFor();
    await dialog.getByText('Cannot remove your own administrator rights as the only administrator').waitFor();
    expect(await dialog.getByRole('button', { name: 'Disable account' }).isDisabled()).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Delete user…' }).isDisabled()).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Remove administrator' }).isDisabled()).toBe(true);
    // The words are the API's own.
    const me = (await admin.req('GET', '/api/me')).id;
    await expect(admin.req('PATCH', `/api/admin/users/${me}`, { isActive: false })).rejects.toThrow(
      'Cannot disable your own account',
    );
    await expect(admin.req('PATCH', `/api/admin/users/${me}`, { isSystemAdmin: false })).rejects.toThrow(
      'Cannot remove your own administrator rights as the only administrator',
    );

    // With a second administrator, giving up one's own rights is allowed, and the page closes.
    const other = await createUser(admin, { isSystemAdmin: true });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    const again = await manage(page, 'root');
    await poll(() => again.getByRole('button', { name: 'Remove administrator' }).isDisabled()).toBe(false);
    await again.getByRole('button', { name: 'Remove administrator' }).click();
    const confirm = page.getByRole('dialog', { name: 'Give up your administrator rights?' });
    await confirm.getByRole('button', { name: 'Remove my rights' }).click();
    await page.getByTestId('admin-forbidden').waitFor();
    expect((await admin.req('GET', '/api/me')).isSystemAdmin).toBe(false);
    expect(other.isSystemAdmin).toBe(true);
  });
});

describe('system settings', () => {
  it('saves upload limits and types, and shows validation errors under their fields', async () => {
    const before = await root.req('GET', '/api/admin/settings');
    const page = await open(root);
    await page.goto(`${base}/admin/settings`);
    const limits = page.getByRole('region', { name: 'Upload limits' });
    await poll(() => limits.getByLabel('Largest image (MB)').inputValue()).toBe(
      String(before.maxImageSize / 1024 / 1024),
    );

    // Server-side validation: a blocked type, then a size of zero, each under its field, nothing saved.
    await page.getByLabel('Add to image types').fill('image/svg+xml');
    await page.getByLabel('Add to image types').press('Enter');
    await page.getByTestId('types-image-types').getByText('image/svg+xml').waitFor();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page
      .getByTestId('types-image-types')
      .getByRole('alert')
      .filter({ hasText: 'image/svg+xml can never be allowed' })
      .waitFor();
    await page.getByRole('alert').filter({ hasText: 'Validation failed' }).waitFor();
    expect(await root.req('GET', '/api/admin/settings')).toEqual(before);

    await page.getByRole('button', { name: 'Remove image/svg+xml' }).click();
    await limits.getByLabel('Largest video (MB)').fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await limits.getByRole('alert').filter({ hasText: 'Must be a positive size' }).waitFor();
    expect(await root.req('GET', '/api/admin/settings')).toEqual(before);

    // A client-side check for things that are not MIME types at all.
    await page.getByLabel('Add to document types').fill('not a type');
    await page.getByRole('button', { name: 'Add type to document types' }).click();
    await page.getByText('is not a MIME type').waitFor();

    await limits.getByLabel('Largest video (MB)').fill('75');
    await limits.getByLabel('Largest document (MB)').fill('12.5');
    await limits.getByLabel('Attachments per ticket').fill('35');
    await page.getByLabel('Add to image types').fill('Image/AVIF');
    await page.getByRole('button', { name: 'Add type to image types' }).click();
    await page.getByRole('button', { name: 'Remove video/quicktime' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved').waitFor();
    const after = await root.req('GET', '/api/admin/settings');
    expect(after).toMatchObject({
      maxImageSize: before.maxImageSize,
      maxVideoSize: 75 * 1024 * 1024,
      maxDocumentSize: Math.round(12.5 * 1024 * 1024),
      maxAttachmentsPerTicket: 35,
      allowedImageTypes: [...before.allowedImageTypes, 'image/avif'],
      allowedVideoTypes: before.allowedVideoTypes.filter((t: string) => t !== 'video/quicktime'),
      allowedDocumentTypes: before.allowedDocumentTypes,
    });
    // The upload configuration everyone reads follows.
    const config = await root.req('GET', '/api/upload');
    expect(config.allowedTypes.image).toContain('image/avif');
    expect(config.maxVideoSize).toBe(75 * 1024 * 1024);

    // Filling in the defaults and saving puts everything back.
    await page.getByRole('button', { name: 'Fill in the defaults' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => root.req('GET', '/api/admin/settings')).toEqual(before);
  });
});

describe('database', () => {
  it('exports a backup with progress and saves the file', async () => {
    const project = await seedProject(root, 'Exported Project');
    const page = await open(root);
    await page.goto(`${base}/admin/database`);
    const section = page.getByRole('region', { name: 'Export' });
    await section.getByLabel('Your password').fill('Wrong-Password-9');
    await section.getByRole('button', { name: 'Download backup' }).click();
    await section.getByRole('alert').filter({ hasText: 'Invalid password confirmation' }).waitFor();

    await section.getByLabel('Your password').fill(PASSWORD);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('button', { name: 'Download backup' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^docket-backup-.*\.json$/);
    const file = await download.path();
    const backup = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(backup).toMatchObject({ format: 'docket-backup', version: 2 });
    expect(backup.data.users.map((u: { username: string }) => u.username)).toContain('root');
    expect(backup.data.projects.map((p: { id: string }) => p.id)).toContain(project.id);
    const saved = section.getByTestId('export-progress');
    await saved.getByText(`Saved ${download.suggestedFilename()}`).waitFor();
    expect(await saved.textContent()).toMatch(/\d+(\.\d)? (B|KB|MB)\)/);
  });

  it('previews a backup, refuses a file that is not one, and imports after confirmation', async () => {
    const { s, admin } = await freshServer();
    const kept = await seedProject(admin, 'Kept Project');
    const alice = await createUser(admin, { username: 'alice' });
    const backup = await admin.req('POST', '/api/admin/database/export', { confirmPassword: PASSWORD });
    // Changes after the backup, which the import undoes.
    const later = await seedProject(admin, 'Later Project');
    await admin.req('DELETE', `/api/admin/users/${alice.id}`, { confirmPassword: PASSWORD });

    const page = await open(admin, 'light', s.baseUrl);
    await page.goto(`${s.baseUrl}/admin/database`);
    const section = page.getByRole('region', { name: 'Import' });
    await page
      .getByTestId('import-input')
      .setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"a":1}') });
    await section.getByText('This file is not a Docket backup').waitFor();
    expect(await section.getByRole('button', { name: /Import and replace/ }).count()).toBe(0);

    await page.getByTestId('import-input').setInputFiles({
      name: 'docket-backup.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(backup)),
    });
    const preview = section.getByTestId('import-preview');
    await poll(() => preview.getByTestId('preview-Users').textContent()).toBe('2');
    expect(await preview.getByTestId('preview-Projects').textContent()).toBe('1');
    expect(await preview.getByTestId('preview-Tickets').textContent()).toBe('1');

    await section.getByRole('button', { name: 'Import and replace all data…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Replace all data with this backup?' });
    await confirm.getByLabel('Type replace all data to confirm').fill('replace all data');
    await confirm.getByLabel('Your password').fill('Wrong-Password-9');
    await confirm.getByRole('button', { name: 'Import backup' }).click();
    await confirm.getByRole('alert').filter({ hasText: 'Invalid password confirmation' }).waitFor();
    expect((await admin.req('GET', '/api/projects')).map((p: { id: string }) => p.id)).toContain(later.id);

    await confirm.getByLabel('Your password').fill(PASSWORD);
    await confirm.getByRole('button', { name: 'Import backup' }).click();
    const notice = page.getByRole('alertdialog', { name: 'Backup imported' });
    await notice.getByText('2 users, 1 project, 1 ticket and 0 sprints').waitFor();
    await page.waitForURL(/\/sign-in/);
    await notice.getByRole('button', { name: 'Sign in' }).click();
    await notice.waitFor({ state: 'detached' });

    // Every session ended, this one too; the data is the backup's.
    await expect(admin.req('GET', '/api/me')).rejects.toThrow(/401/);
    const back = await signIn(s.baseUrl, 'root');
    const projects = (await back.req('GET', '/api/projects')).map((p: { id: string }) => p.id);
    expect(projects).toEqual([kept.id]);
    const users = (await back.req('GET', '/api/admin/users')).map((u: { username: string }) => u.username);
    expect(users.sort()).toEqual(['alice', 'root']);
  });

  it('wipes every project after password and typed confirmation, keeping users', async () => {
    const { s, admin } = await freshServer();
    await seedProject(admin, 'Doomed One');
    await seedProject(admin, 'Doomed Two');
    const bob = await createUser(admin, { username: 'bob' });
    const page = await open(admin, 'light', s.baseUrl);
    await page.goto(`${s.baseUrl}/admin/database`);
    await page.getByRole('button', { name: 'Wipe all projects…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete every project?' });
    await confirm.getByLabel('Your password').fill(PASSWORD);
    const go = confirm.getByRole('button', { name: 'Wipe projects' });
    expect(await go.isDisabled()).toBe(true);
    await confirm.getByLabel('Type wipe projects to confirm').fill('wipe projects');
    await go.click();
    await page.getByText('Deleted 2 projects, 2 tickets and 0 sprints').waitFor();
    expect(await admin.req('GET', '/api/projects')).toEqual([]);
    expect((await admin.req('GET', `/api/admin/users/${bob.id}`)).username).toBe('bob');
    // Still signed in: this operation keeps accounts and sessions.
    expect((await admin.req('GET', '/api/me')).username).toBe('root');
  });

  it('wipes all data, shows the new administrator once, and that account signs in', async () => {
    const { s, admin } = await freshServer();
    await seedProject(admin, 'Everything Goes');
    await createUser(admin, { username: 'carol' });
    const page = await open(admin, 'light', s.baseUrl);
    await page.goto(`${s.baseUrl}/admin/database`);
    await page.getByRole('button', { name: 'Wipe all data…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete all data?' });
    await confirm.getByLabel('Your password').fill(PASSWORD);
    await confirm.getByLabel('Type wipe all data to confirm').fill('wipe all dat');
    expect(await confirm.getByRole('button', { name: 'Wipe all data' }).isDisabled()).toBe(true);
    await confirm.getByLabel('Type wipe all data to confirm').fill('wipe all data');
    await confirm.getByRole('button', { name: 'Wipe all data' }).click();

    const notice = page.getByRole('alertdialog', { name: 'All data wiped' });
    await page.waitForURL(/\/sign-in/);
    const username = await notice.getByTestId('new-admin-username').textContent();
    const password = await notice.getByTestId('new-admin-password').textContent();
    expect(username).toBe('admin');
    expect(password?.length).toBeGreaterThanOrEqual(12);
    // The notice outlives the sign-out: it is still there on the sign-in page.
    await page.getByLabel('Username or e-mail').waitFor();
    await notice.getByRole('button', { name: 'I have saved it' }).click();
    await notice.waitFor({ state: 'detached' });

    await expect(admin.req('GET', '/api/me')).rejects.toThrow(/401/);
    await page.getByLabel('Username or e-mail').fill(username!);
    await page.getByLabel('Password').fill(password!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The temporary password must be replaced first (issue 19): the API refuses the rest until then.
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('Current password').fill(password!);
    await page.getByLabel('New password', { exact: true }).fill('A-fresh-password-9');
    await page.getByLabel('Repeat new password').fill('A-fresh-password-9');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByTestId('current-user').waitFor();
    const fresh = await signIn(s.baseUrl, username!, 'A-fresh-password-9');
    const users = (await fresh.req('GET', '/api/admin/users')).map((u: { username: string }) => u.username);
    expect(users).toEqual(['admin']);
    expect(await fresh.req('GET', '/api/projects')).toEqual([]);
  });
});

describe('screenshots', () => {
  it('shows each section in the light and dark themes', async () => {
    const { s, admin } = await freshServer();
    await admin.req('PATCH', '/api/me', { name: 'Root Admin' });
    const people = [
      { username: 'dana', name: 'Dana Scully', email: 'dana@example.com', isSystemAdmin: true },
      { username: 'fox', name: 'Fox Mulder', email: 'fox@example.com' },
      { username: 'monica', name: 'Monica Reyes', email: 'monica@example.com' },
      { username: 'walter', name: 'Walter Skinner', email: 'walter@example.com' },
      { username: 'john' },
    ];
    for (const p of people) {
      const u = await createUser(admin, p);
      if (p.username === 'walter') await admin.req('PATCH', `/api/admin/users/${u.id}`, { isActive: false });
    }
    const project = await seedProject(admin, 'Field Office');
    await admin.req('POST', `/api/projects/${project.id}/tickets`, { title: 'File the report' });
    const backup = await admin.req('POST', '/api/admin/database/export', { confirmPassword: PASSWORD });
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(admin, theme, s.baseUrl, { height: 900 });
      await page.goto(`${s.baseUrl}/admin/users`);
      await rowOf(page, 'walter').waitFor();
      await quiet(page);
      await screenshot(page, `admin-users-${theme}`);

      await page.goto(`${s.baseUrl}/admin/settings`);
      await page.getByRole('region', { name: 'Allowed file types' }).waitFor();
      await quiet(page);
      await screenshot(page, `admin-settings-${theme}`);

      // The database section with a backup chosen for import, its counts previewed.
      await page.goto(`${s.baseUrl}/admin/database`);
      await page.getByRole('region', { name: 'Wipe all data' }).waitFor();
      await page.getByTestId('import-input').setInputFiles({
        name: 'docket-backup.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(backup)),
      });
      await page.getByTestId('import-preview').waitFor();
      await quiet(page);
      await screenshot(page, `admin-database-${theme}`);
    }
  });
});
