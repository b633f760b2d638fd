import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, newClient, oauthTransport } from '../helpers/oauth.js';
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

/**
 * The consent page of OAuth sign-in, in a browser: the SDK's client starts the sign-in, the
 * browser opens its authorization URL, the user signs in, picks read-only access and allows it;
 * the browser lands on the client's own callback server with the code, and the client then
 * works with read access only. The grant is listed in the profile and revoked there.
 */

let server: Server;
let browser: Browser;
let callback: http.Server;
let callbackUrl: string;
const codes: URL[] = [];

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  // The client's redirect URI: a loopback server, as a desktop assistant listens for the code.
  callback = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', callbackUrl);
    // Only the redirect itself (the browser also asks this server for a favicon).
    if (u.pathname === '/callback') codes.push(u);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Signed in. You can close this tab.</p>');
  });
  await new Promise<void>((r) => callback.listen(0, '127.0.0.1', () => r()));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
});

afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.stop();
  await new Promise((r) => callback?.close(r));
});

describe('OAuth consent page', () => {
  it('signs in, grants read access to an MCP client, lists it in the profile and revokes it', async () => {
    const base = server.baseUrl;
    const user = await ApiClient.signUp(base, undefined, 'Consenting User');
    const provider = new MemoryOAuthProvider(callbackUrl, { client_name: 'Claude Desktop' });
    const transport = oauthTransport(base, provider);
    await expect(newClient().connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    // Not signed in yet: the sign-in page comes first, then the consent page.
    const page = await openPage(browser, base);
    await page.goto(String(provider.authorizationUrl));
    await page.getByLabel('Username or e-mail').fill(user.username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('oauth-consent').waitFor();
    await expect
      .poll(() => page.getByRole('heading', { name: 'Allow Claude Desktop to use Docket?' }).count())
      .toBe(1);
    await expect.poll(() => page.getByText(callbackUrl).count()).toBe(1);
    await page.getByLabel(/Read only/).check();
    await screenshot(page, 'oauth-consent');
    const seen = codes.length;
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(callbackUrl));
    await expect.poll(() => codes.length).toBe(seen + 1);
    const back = codes.at(-1) as URL;
    expect(back.searchParams.get('iss')).toBe(base);
    await transport.finishAuth(back.searchParams.get('code') as string);
    expect(provider.saved?.scope).toBe('read');

    const client = newClient();
    await client.connect(oauthTransport(base, provider));
    expect((await client.callTool({ name: 'list_projects', arguments: {} })).isError).toBeFalsy();
    const write = await client.callTool({
      name: 'create_project',
      arguments: { name: 'No', projectKey: 'NO' },
    });
    expect(write.isError).toBe(true);
    await client.close();

    // Beside the API keys in the profile, and revoked from there.
    await page.goto(`${base}/profile`);
    const grant = page.getByTestId('oauth-grant');
    await expect.poll(() => grant.count()).toBe(1);
    await expect.poll(() => grant.getByText('Claude Desktop').count()).toBe(1);
    await grant.scrollIntoViewIfNeeded();
    await screenshot(page, 'profile-connected-apps');
    await grant.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => grant.count()).toBe(0);
    const res = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.saved?.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });

  it('sends a denial back to the client, and shows a request it cannot use', async () => {
    const base = server.baseUrl;
    const user = await ApiClient.signUp(base);
    const provider = new MemoryOAuthProvider(callbackUrl, { client_name: 'Unwanted' });
    await expect(newClient().connect(oauthTransport(base, provider))).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const page = await openPage(browser, base, user);
    await page.goto(String(provider.authorizationUrl));
    const seen = codes.length;
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((u) => u.href.startsWith(callbackUrl));
    await expect.poll(() => codes.length).toBe(seen + 1);
    expect(codes.at(-1)?.searchParams.get('error')).toBe('access_denied');

    const bad = new URL(String(provider.authorizationUrl));
    bad.searchParams.set('redirect_uri', 'https://evil.example/cb');
    await page.goto(String(bad));
    await expect.poll(() => page.getByText('This sign-in request cannot be used.').count()).toBe(1);
    expect(page.url()).toContain(base);
  });
});
