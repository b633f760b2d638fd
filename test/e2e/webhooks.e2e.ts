import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';
import {
  ApiClient,
  closeContexts,
  launchBrowser,
  openPage,
  type Server,
  screenshot,
  startServer,
  unique,
  uniqueKey,
} from './harness.js';

/**
 * The webhooks section of the project settings, against the built app and a real HTTP receiver
 * started here: add a hook, see its secret once, watch the delivery arrive signed, redeliver it,
 * turn it off, delete it; a member does not see the section.
 */
let server: Server;
let browser: Browser;
let base: string;
let rx: Receiver;

const section = (page: Page) => page.getByRole('region', { name: 'Webhooks' });

beforeAll(async () => {
  rx = await startReceiver();
  server = await startServer({ DOCKET_WEBHOOK_ALLOW_PRIVATE: 'true' });
  base = server.baseUrl;
  browser = await launchBrowser();
  await ApiClient.signUp(base, unique('admin'));
});

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
  await rx?.close();
});

describe('webhooks settings', () => {
  it('adds a hook, shows its secret once, lists signed deliveries, redelivers, turns it off and deletes it', async () => {
    const owner = await ApiClient.signUp(base);
    const key = uniqueKey('H');
    const project = await owner.req('POST', '/api/projects', { name: 'Hooks Lab', key });
    const page = await openPage(browser, base, owner);
    await page.goto(`${base}/projects/${project.key}/settings`);
    const hooks = section(page);
    await hooks.getByText('No webhooks yet.').waitFor();

    await hooks.getByLabel('Payload URL').fill(`${rx.url}/e2e`);
    await hooks.getByRole('button', { name: 'Add webhook' }).click();
    const secretBox = hooks.getByTestId('webhook-secret');
    await secretBox.waitFor();
    const secret = ((await secretBox.locator('code').textContent()) ?? '').trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    await hooks.getByTestId('webhook-row').getByText('Active').waitFor();
    await screenshot(page, 'webhooks-settings');
    await secretBox.getByRole('button', { name: 'Done' }).click();
    expect(await secretBox.count()).toBe(0);

    // A change reaches the receiver, signed with the secret shown.
    const ticket = await owner.req('POST', `/api/projects/${project.id}/tickets`, { title: 'Hooked' });
    await expect.poll(() => rx.received.filter((r) => r.path === '/e2e').length, { timeout: 15_000 }).toBe(1);
    const got = rx.received.find((r) => r.path === '/e2e');
    expect(got?.headers['x-docket-signature']).toBe(
      `sha256=${createHmac('sha256', secret)
        .update(got?.body ?? '')
        .digest('hex')}`,
    );
    expect(got?.json.data.id).toBe(ticket.id);

    const row = hooks.getByTestId('webhook-row');
    await row.getByRole('button', { name: 'Deliveries' }).click();
    const delivery = row.getByTestId('delivery-row').first();
    await delivery.getByText('delivered').waitFor({ timeout: 15_000 });
    await delivery.getByRole('cell', { name: '200', exact: true }).waitFor();
    await delivery.getByRole('button', { name: 'ticket.created' }).click();
    await row.getByText('"title": "Hooked"').waitFor();
    await screenshot(page, 'webhooks-deliveries');

    // A refused input is shown in the API's words (after the screenshots: the browser logs the 400).
    await hooks.getByLabel('Payload URL').fill('ftp://example.com/x');
    await hooks.getByRole('button', { name: 'Add webhook' }).click();
    await hooks
      .getByRole('alert')
      .getByText(/Validation failed: url:/)
      .waitFor();

    expect(await owner.req('GET', `/api/projects/${project.id}/webhooks`)).toHaveLength(1);

    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Delivery queued again').waitFor();
    await expect.poll(() => rx.received.filter((r) => r.path === '/e2e').length, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => row.getByTestId('delivery-row').count(), { timeout: 15_000 }).toBe(2);

    await row.getByRole('button', { name: 'Turn off' }).click();
    await row.getByTestId('webhook-status').getByText('Off').waitFor();
    await expect
      .poll(async () => (await owner.req('GET', `/api/projects/${project.id}/webhooks`))[0].active)
      .toBe(false);

    await row.getByRole('button', { name: `Delete webhook ${rx.url}/e2e` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
    await hooks.getByText('No webhooks yet.').waitFor();
    expect(await owner.req('GET', `/api/projects/${project.id}/webhooks`)).toEqual([]);
  });

  it('is not shown to a plain member', async () => {
    const owner = await ApiClient.signUp(base);
    const member = await ApiClient.signUp(base);
    const key = uniqueKey('M');
    const project = await owner.req('POST', '/api/projects', { name: 'Members Only', key });
    await owner.req('POST', `/api/projects/${project.id}/members`, { userId: member.userId });
    const page = await openPage(browser, base, member);
    await page.goto(`${base}/projects/${project.key}/settings`);
    await page.getByRole('region', { name: 'Labels' }).waitFor();
    expect(await section(page).count()).toBe(0);
  });
});
