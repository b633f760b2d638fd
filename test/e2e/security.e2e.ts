import { Secret, TOTP } from 'otpauth';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  closeContexts,
  launchBrowser,
  openPage,
  PASSWORD,
  type Server,
  startServer,
  unique,
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;
let root: ApiClient;

beforeAll(async () => {
  server = await startServer({ DOCKET_ADMIN_USERNAME: 'root', DOCKET_ADMIN_PASSWORD: PASSWORD });
  base = server.baseUrl;
  browser = await launchBrowser();
  root = new ApiClient(base);
  await root.req('POST', '/api/auth/callback/credentials', { username: 'root', password: PASSWORD });
});

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
});

describe('account security in the web app', () => {
  it('lists my sessions and ends another one', async () => {
    const user = await ApiClient.signUp(base);
    const phone = new ApiClient(base);
    await phone.req('POST', '/api/auth/callback/credentials', {
      username: user.username,
      password: PASSWORD,
    });
    const page = await openPage(browser, base, user);
    await page.goto(`${base}/profile`);
    const sessions = page.getByTestId('session');
    await expect.poll(() => sessions.count()).toBe(2);
    await expect.poll(() => page.getByText('This session').count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect.poll(() => sessions.count()).toBe(1);
    await expect(phone.req('GET', '/api/me')).rejects.toThrow(/401/);
    expect((await user.req('GET', '/api/me')).username).toBe(user.username);
  });

  it('creates a read key shown once, and revokes it', async () => {
    const user = await ApiClient.signUp(base);
    const page = await openPage(browser, base, user);
    await page.goto(`${base}/profile`);
    await page.getByLabel('Key name').fill('Reporting script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-api-key');
    await shown.waitFor();
    const key = ((await shown.locator('pre').first().textContent()) ?? '').trim();
    const list = await user.req('GET', '/api/me/api-keys');
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: 'Reporting script', scope: 'read' });
    expect(list[0].expiresAt).not.toBeNull();
    expect(key).toMatch(/^dk_/);
    {
      const res = await fetch(`${base}/api/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', key: 'NOPEK' }),
      });
      expect(res.status).toBe(403);
    }
    await page.getByTestId('api-key').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByTestId('api-key').count()).toBe(0);
    expect(await user.req('GET', '/api/me/api-keys')).toEqual([]);
  });

  it('shows administrators the audit log', async () => {
    const name = unique('aud');
    await ApiClient.signUp(base, name);
    const page = await openPage(browser, base, root);
    await page.goto(`${base}/admin/audit`);
    await page.getByTestId('audit-log').waitFor();
    await page.getByLabel('Actor (username)').fill(name);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByTestId('audit-entry').count()).toBe(1);
    expect(await page.getByTestId('audit-entry').textContent()).toContain('auth.login');
  });

  it('sets up two-factor sign-in and signs in with a code', async () => {
    const user = await ApiClient.signUp(base);
    const page = await openPage(browser, base, user);
    await page.goto(`${base}/profile`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const setup = page.getByTestId('two-factor-setup');
    await setup.waitFor();
    const secret = ((await setup.locator('pre').first().textContent()) ?? '').trim();
    const codeNow = (offset = 0) =>
      TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offset * 30_000 });
    await page.getByLabel('Code from the app').fill(codeNow(-1));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await page.getByTestId('two-factor-on').waitFor();
    expect((await user.req('GET', '/api/me/two-factor')).enabled).toBe(true);

    const fresh = await openPage(browser, base);
    await fresh.goto(`${base}/sign-in`);
    await fresh.getByLabel('Username or e-mail').fill(user.username);
    await fresh.getByLabel('Password').fill(PASSWORD);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByLabel('Two-factor code').fill(codeNow());
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByTestId('current-user').waitFor();
  });

  // Last: it wipes the instance.
  it("asks the wipe's administrator for a new password before anything else", async () => {
    const wiped = await root.req('POST', '/api/admin/database/wipe', {
      confirmPassword: PASSWORD,
      confirmation: 'wipe all data',
    });
    const { username, temporaryPassword } = wiped.newAdminCredentials;
    const page = await openPage(browser, base);
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(username);
    await page.getByLabel('Password').fill(temporaryPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(await page.getByTestId('current-user').count()).toBe(0);
    await page.getByLabel('Current password').fill(temporaryPassword);
    await page.getByLabel('New password', { exact: true }).fill('A-fresh-password-9');
    await page.getByLabel('Repeat new password').fill('A-fresh-password-9');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByTestId('current-user').waitFor();
  });
});
