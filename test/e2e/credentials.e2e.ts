/**
 * Issue 49: the profile's password change asks which API keys to keep, names the connected apps
 * that end, and tells afterwards what ended; a kept key works after it, the others answer 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, openPage, PASSWORD, type Suite, startSuite, stopSuite } from './harness.js';

let suite: Suite;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(async () => stopSuite(suite));

const status = async (token: string) =>
  (await fetch(`${suite.base}/api/me`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('the password change', () => {
  it('keeps the key ticked in its dialog, ends the others, and says what ended', async () => {
    const user = await ApiClient.signUp(suite.base);
    const deploy = await user.req('POST', '/api/me/api-keys', { name: 'Deploy', scope: 'write' });
    const laptop = await user.req('POST', '/api/me/api-keys', { name: 'Laptop', scope: 'read' });
    const page = await openPage(suite.browser, suite.base, user);
    await page.goto(`${suite.base}/profile`);
    const section = page.getByRole('region', { name: 'Password' });
    const next = 'Another-Horse-77';
    await section.getByLabel('Current password').fill(PASSWORD);
    await section.getByLabel('New password', { exact: true }).fill(next);
    await section.getByLabel('Repeat new password').fill(next);
    await section.getByRole('button', { name: 'Change password' }).click();

    const dialog = page.getByRole('dialog', { name: 'Change your password?' });
    const keepDeploy = dialog.getByRole('checkbox', { name: /Keep “Deploy”/ });
    const keepLaptop = dialog.getByRole('checkbox', { name: /Keep “Laptop”/ });
    expect(await keepDeploy.isChecked()).toBe(false);
    expect(await keepLaptop.isChecked()).toBe(false);
    await keepDeploy.check();
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await dialog.waitFor({ state: 'detached' });

    const summary = section.getByTestId('password-ended');
    await summary.getByText('API key ended: “Laptop”.').waitFor();
    await summary.getByText('API key kept: “Deploy”.').waitFor();
    expect(await status(deploy.key)).toBe(200);
    expect(await status(laptop.key)).toBe(401);
    // The keys list shows only the kept one, and the page keeps working with its fresh session.
    await page.reload();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    const r = await fetch(`${suite.base}/api/auth/verify-credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: user.username, password: next }),
    });
    expect((await r.json()).valid).toBe(true);
  });
});
