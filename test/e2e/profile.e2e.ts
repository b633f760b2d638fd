import type { Browser } from 'playwright-core';
import sharp from 'sharp';
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
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;

const open = (client: ApiClient, theme: 'light' | 'dark' = 'light') =>
  openPage(browser, base, client, { theme });

async function status(baseUrl: string, path: string, headers: Record<string, string>) {
  return (await fetch(`${baseUrl}${path}`, { headers })).status;
}

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

describe('profile', () => {
  it('changes the display name, and the shell shows it at once', async () => {
    const user = await ApiClient.signUp(base, undefined, 'Ada Lovelace');
    const page = await open(user);
    await page.goto(`${base}/profile`);
    await page.getByLabel('Display name').fill('Ada King');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => page.getByTestId('current-user').textContent()).toBe('Ada King');
    expect((await user.req('GET', '/api/me')).name).toBe('Ada King');
  });

  it('uploads a cropped avatar and removes it', async () => {
    const user = await ApiClient.signUp(base, undefined, 'Grace Hopper');
    const page = await open(user);
    await page.goto(`${base}/profile`);
    const png = await sharp({
      create: { width: 400, height: 200, channels: 3, background: { r: 40, g: 120, b: 200 } },
    })
      .png()
      .toBuffer();
    await page
      .getByTestId('avatar-input')
      .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    const dialog = page.getByRole('dialog', { name: 'Crop your avatar' });
    await dialog.getByTestId('crop-preview').locator('img').waitFor();
    await dialog.getByTestId('crop-preview').press('ArrowLeft');
    await dialog.getByRole('button', { name: 'Save avatar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await user.req('GET', '/api/me')).avatar).toMatch(/^\/uploads\//);
    // The shell's user menu shows the picture.
    await page.locator('nav[aria-label="Main"] img[alt="Grace Hopper"]').waitFor();
    await page.getByRole('button', { name: 'Remove avatar' }).click();
    await expect.poll(async () => (await user.req('GET', '/api/me')).avatar).toBeNull();
  });

  it('refuses an avatar of the wrong type before uploading', async () => {
    const user = await ApiClient.signUp(base);
    const page = await open(user);
    await page.goto(`${base}/profile`);
    await page
      .getByTestId('avatar-input')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.getByText('Choose a JPEG, PNG, GIF or WebP image.').waitFor();
  });

  it('changes the e-mail only with the right password, showing the API error otherwise', async () => {
    const user = await ApiClient.signUp(base);
    const page = await open(user);
    await page.goto(`${base}/profile`);
    const email = `${user.username}@example.com`;
    await page.getByLabel('E-mail', { exact: true }).fill(email);
    const section = page.getByRole('region', { name: 'E-mail address' });
    await section.getByLabel('Current password').fill('Wrong-Password-1');
    await section.getByRole('button', { name: 'Change e-mail' }).click();
    await section.getByRole('alert').filter({ hasText: 'Invalid password' }).waitFor();
    await section.getByLabel('Current password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Change e-mail' }).click();
    await expect.poll(async () => (await user.req('GET', '/api/me')).email).toBe(email);
  });

  it('shows the password rules as they are met and changes the password', async () => {
    const user = await ApiClient.signUp(base);
    const page = await open(user);
    await page.goto(`${base}/profile`);
    const section = page.getByRole('region', { name: 'Password' });
    await section.getByLabel('New password', { exact: true }).fill('short');
    const rules = section.getByTestId('password-rules').locator('li');
    expect(await rules.evaluateAll((els) => els.map((e) => e.getAttribute('data-ok')))).toEqual([
      'false',
      'false',
      'true',
      'false',
    ]);
    const button = section.getByRole('button', { name: 'Change password' });
    await section.getByLabel('Current password').fill(PASSWORD);
    expect(await button.isDisabled()).toBe(true);
    const next = 'Another-Horse-77';
    await section.getByLabel('New password', { exact: true }).fill(next);
    await section.getByLabel('Repeat new password').fill(next);
    expect(await rules.evaluateAll((els) => els.every((e) => e.getAttribute('data-ok') === 'true'))).toBe(
      true,
    );
    await button.click();
    await page.getByText('Password changed').waitFor();
    const r = await fetch(`${base}/api/auth/verify-credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: user.username, password: next }),
    });
    expect((await r.json()).valid).toBe(true);
    // The page keeps working with the fresh session cookie.
    await page.reload();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
  });

  it('creates an API key shown once with client configurations, reports its status and revokes it', async () => {
    const user = await ApiClient.signUp(base);
    const page = await open(user);
    await page.goto(`${base}/profile`);
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    const key = (await shown.getByTestId('copy-API key').textContent())!.trim();
    expect(key.length).toBeGreaterThan(20);
    const stdio = JSON.parse(
      (await shown.getByTestId('copy-Configuration for the stdio tool server').textContent())!,
    );
    expect(stdio.mcpServers.docket.command).toBe('node');
    expect(stdio.mcpServers.docket.args[0]).toMatch(/\/bin\/docket-mcp\.js$/);
    expect(stdio.mcpServers.docket.env).toEqual({ MCP_API_KEY: key, DOCKET_URL: base });
    const http = JSON.parse(
      (await shown.getByTestId('copy-Configuration for the HTTP endpoint').textContent())!,
    );
    expect(http.mcpServers.docket.url).toBe(`${base}/api/mcp`);
    expect(http.mcpServers.docket.headers.Authorization).toBe(`Bearer ${key}`);
    await page.getByLabel('Folder of Docket on the machine that runs the assistant').fill('/opt/docket');
    const changed = JSON.parse(
      (await shown.getByTestId('copy-Configuration for the stdio tool server').textContent())!,
    );
    expect(changed.mcpServers.docket.args[0]).toBe('/opt/docket/bin/docket-mcp.js');
    await page.getByTestId('key-status').getByText('Active key').waitFor();
    await screenshot(page, 'profile-light');
    expect(await status(base, '/api/projects', { authorization: `Bearer ${key}` })).toBe(200);

    // Shown once: after a reload only the status remains.
    await page.reload();
    await page.getByTestId('key-status').getByText('Active key').waitFor();
    expect(await page.getByTestId('new-key').count()).toBe(0);

    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByTestId('key-status').getByText('No key yet.').waitFor();
    expect(await status(base, '/api/projects', { authorization: `Bearer ${key}` })).toBe(401);
  });

  it('looks right in the dark theme', async () => {
    const user = await ApiClient.signUp(base, undefined, 'Dark Reader');
    const page = await open(user, 'dark');
    await page.goto(`${base}/profile`);
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByTestId('new-key').waitFor();
    await page
      .getByRole('region', { name: 'Password' })
      .getByLabel('New password', { exact: true })
      .fill('Partly-ok');
    await screenshot(page, 'profile-dark');
  });

  it('deletes the account after the typed confirmation and the password', async () => {
    const user = await ApiClient.signUp(base);
    const page = await open(user);
    await page.goto(`${base}/profile`);
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    const confirm = dialog.getByRole('button', { name: 'Delete my account' });
    await dialog.getByLabel('Your password').fill(PASSWORD);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type delete my account to confirm').fill('delete my account');
    await confirm.click();
    await page.waitForURL(/\/sign-in/);
    const r = await fetch(`${base}/api/auth/verify-credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: user.username, password: PASSWORD }),
    });
    expect((await r.json()).valid).toBe(false);
  });
});
