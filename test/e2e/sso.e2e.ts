/**
 * Single sign-on and forgotten passwords in the web app: the sign-in page's button takes the
 * browser through a real OpenID provider (oidc-provider) and back signed in; the forgotten-password
 * pages send a link through a real SMTP server, and the link's page sets the new password.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodedMail, type Mailbox, startMailbox } from '../helpers/mailbox.js';
import { startProvider, type TestProvider } from '../helpers/oidc.js';
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
} from './harness.js';

let provider: TestProvider;
let mailbox: Mailbox;
let server: Server;
let browser: Browser;
let base: string;

beforeAll(async () => {
  provider = await startProvider([]);
  mailbox = await startMailbox();
  server = await startServer({
    DOCKET_OIDC_ISSUER: provider.issuer,
    DOCKET_OIDC_CLIENT_ID: 'docket-loopback',
    DOCKET_OIDC_CLIENT_SECRET: 'docket-secret',
    DOCKET_OIDC_NAME: 'Acme ID',
    DOCKET_SMTP_URL: mailbox.smtpUrl,
    DOCKET_MAIL_FROM: 'Docket <docket@mail.example.com>',
  });
  base = server.baseUrl;
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
  await mailbox?.stop();
  await provider?.stop();
});

describe('single sign-on in the web app', () => {
  it('signs in with the provider from the sign-in page, linked to the account with that e-mail', async () => {
    const email = `${unique('sso')}@example.com`;
    const user = await ApiClient.signUp(base);
    await user.req('PATCH', '/api/me/email', { email, password: PASSWORD });
    const sub = unique('sub');
    provider.setAccount(sub, { email, email_verified: true, name: 'Sso Person' });

    const page = await openPage(browser, base);
    await page.goto(`${base}/sign-in`);
    const button = page.getByRole('link', { name: 'Sign in with Acme ID' });
    await button.waitFor();
    await page.getByText('Forgot your password?').waitFor();
    await screenshot(page, 'sign-in-sso');

    await button.click();
    // The provider's own (development) sign-in and consent pages.
    await page.locator('input[name="login"]').fill(sub);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    await page.getByTestId('current-user').waitFor();
    expect(new URL(page.url()).origin).toBe(base);
    const session = await page.evaluate(() => fetch('/api/auth/session').then((r) => r.json()));
    expect(session.user.id).toBe(user.userId);
  });

  it('shows why a sign-in was refused', async () => {
    const page = await openPage(browser, base);
    await page.goto(`${base}/sign-in?sso=domain`);
    await page.getByRole('alert').getByText('Your e-mail domain is not allowed to sign in here').waitFor();
  });
});

describe('forgotten passwords in the web app', () => {
  it('sends a link by e-mail and sets a new password with it', async () => {
    const email = `${unique('reset')}@example.com`;
    const user = await ApiClient.signUp(base);
    await user.req('PATCH', '/api/me/email', { email, password: PASSWORD });

    const page = await openPage(browser, base);
    await page.goto(`${base}/sign-in`);
    await page.getByText('Forgot your password?').click();
    await page.getByLabel('E-mail or username').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('status').getByText('is on its way').waitFor();
    await screenshot(page, 'forgot-password-sent');

    const [mail] = await mailbox.waitFor(email);
    const link = /(http:\/\/127\.0\.0\.1:\d+\/reset-password#token=[A-Za-z0-9_-]+)/.exec(
      decodedMail(mail.raw),
    )?.[1];
    expect(link).toBeTruthy();
    await page.goto(link as string);
    await page.getByLabel('New password').fill('Fresh-password-99');
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password is changed').waitFor();
    // The old session ended with the reset.
    await expect(user.req('GET', '/api/me')).rejects.toThrow(/401/);
    await page.getByLabel('Username or e-mail').fill(user.username);
    await page.getByLabel('Password').fill('Fresh-password-99');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('current-user').waitFor();
  });
});
