/**
 * E-mail confirmation of new accounts in the web app (issue 49): an administrator turns it on in
 * the Security tab; the register page asks for the address and says to check it; the link arrives
 * through a real SMTP server (the server's own mail sender); until it is used nobody can sign in;
 * the confirm page takes the password chosen and signs in.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodedMail, type Mailbox, startMailbox } from '../helpers/mailbox.js';
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

let mailbox: Mailbox;
let server: Server;
let browser: Browser;
let base: string;
let admin: ApiClient;

beforeAll(async () => {
  mailbox = await startMailbox();
  server = await startServer({
    DOCKET_SMTP_URL: mailbox.smtpUrl,
    DOCKET_MAIL_FROM: 'Docket <docket@mail.example.com>',
  });
  base = server.baseUrl;
  browser = await launchBrowser();
  admin = await ApiClient.signUp(base, unique('admin'));
}, 180_000);

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
  await mailbox?.stop();
});

describe('confirming new accounts by e-mail', () => {
  it('is turned on by an administrator, and a registration becomes an account only through the link', async () => {
    const adminPage = await openPage(browser, base, admin);
    await adminPage.goto(`${base}/admin/audit`);
    const toggle = adminPage.getByLabel('Confirm new accounts by e-mail');
    await toggle.check();
    await expect
      .poll(async () => (await admin.req('GET', '/api/admin/security')).requireEmailConfirmation)
      .toBe(true);
    await screenshot(adminPage, 'admin-email-confirmation');

    const username = unique('new');
    const email = `${username}@example.com`;
    const page = await openPage(browser, base);
    await page.goto(`${base}/register`);
    await page.getByText('We send a link to confirm the account to this address.').waitFor();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').getByText('is on its way').waitFor();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    await screenshot(page, 'register-check-email');

    // Not an account yet: signing in fails as for anyone unknown.
    const probe = await openPage(browser, base);
    await probe.goto(`${base}/sign-in`);
    await probe.getByLabel('Username or e-mail').fill(username);
    await probe.getByLabel('Password').fill(PASSWORD);
    await probe.getByRole('button', { name: 'Sign in' }).click();
    await probe.getByRole('alert').getByText('Invalid username or password').waitFor();

    const [mail] = await mailbox.waitFor(email);
    expect(mail.subject).toBe('Confirm your new Docket account');
    const link = /(http:\/\/127\.0\.0\.1:\d+\/confirm-email#token=[A-Za-z0-9_-]+)/.exec(
      decodedMail(mail.raw),
    )?.[1];
    expect(link).toBeTruthy();
    await page.goto(link as string);
    await page.getByRole('heading', { name: 'Confirm your account' }).waitFor();
    await page.getByLabel('Password').fill('Not-the-password-1');
    await screenshot(page, 'confirm-email');
    await page.getByRole('button', { name: 'Confirm account' }).click();
    await page.getByRole('alert').getByText('Invalid password').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm account' }).click();
    await page.getByTestId('current-user').waitFor();
    const session = await page.evaluate(() => fetch('/api/auth/session').then((r) => r.json()));
    expect(session.user.email).toBe(email);

    // The link is spent.
    const again = await openPage(browser, base);
    await again.goto(link as string);
    await again.getByLabel('Password').fill(PASSWORD);
    await again.getByRole('button', { name: 'Confirm account' }).click();
    await again
      .getByRole('alert')
      .getByText('This confirmation link is invalid, used or expired: register again')
      .waitFor();
  });
});
