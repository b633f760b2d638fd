/**
 * The real OpenID provider process (test/helpers/oidc-provider.ts) and a small browser for it: it
 * follows the provider's redirects with the provider's cookies, fills in its sign-in and consent
 * pages, and stops at the first redirect to `stopAt` (Docket's callback), which it answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ServerProcess, startProcess } from './server.js';

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
}

export interface TestProvider {
  issuer: string;
  /** Adds or replaces an account (its subject is its login on the provider's sign-in page). */
  setAccount(sub: string, claims: ProviderAccount): void;
  /** Signs in as `sub` at the provider from its authorization URL; answers the redirect to `stopAt`. */
  signIn(authorizationUrl: string, sub: string, stopAt: string): Promise<URL>;
  process: ServerProcess;
  stop(): Promise<void>;
}

export async function startProvider(redirectUris: string[]): Promise<TestProvider> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-oidc-'));
  const file = path.join(dir, 'accounts.json');
  fs.writeFileSync(file, '{}');
  const proc = await startProcess({
    args: ['--import', 'tsx', 'test/helpers/oidc-provider.ts', file],
    env: { OIDC_REDIRECT_URIS: redirectUris.join(',') },
    ready: 'listening',
  });
  return {
    issuer: proc.url,
    process: proc,
    setAccount(sub, claims) {
      const all = JSON.parse(fs.readFileSync(file, 'utf8'));
      all[sub] = claims;
      fs.writeFileSync(file, JSON.stringify(all));
    },
    async signIn(authorizationUrl, sub, stopAt) {
      const jar = new Map<string, string>();
      let url = new URL(authorizationUrl);
      let method = 'GET';
      let body: string | undefined;
      for (let hop = 0; hop < 20; hop++) {
        const res = await fetch(url, {
          method,
          redirect: 'manual',
          headers: {
            cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
            ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          body,
        });
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(';');
          const eq = pair.indexOf('=');
          jar.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        method = 'GET';
        body = undefined;
        const location = res.headers.get('location');
        if (res.status >= 300 && res.status < 400 && location) {
          const next = new URL(location, url);
          if (next.href.startsWith(stopAt)) return next;
          url = next;
          continue;
        }
        const html = await res.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
        const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
        if (res.status !== 200 || !action || !prompt)
          throw new Error(`unexpected provider page ${res.status} at ${url}:\n${html.slice(0, 2000)}`);
        url = new URL(action.replace(/&amp;/g, '&'), url);
        method = 'POST';
        body =
          prompt === 'login'
            ? new URLSearchParams({ prompt, login: sub, password: 'any' }).toString()
            : new URLSearchParams({ prompt }).toString();
      }
      throw new Error('too many redirects at the provider');
    },
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
