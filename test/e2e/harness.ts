/**
 * Browser-test harness: builds the app when needed, starts a real server (node dist/server/main.js)
 * on a free port with a temporary data directory, and drives Debian's Chromium with playwright-core.
 * Set E2E_BASE_URL to run against a server that is already running instead.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startProcess } from '../helpers/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Where screenshots go: a temporary folder (overwritten by each run), unless DOCKET_SCREENSHOTS_DIR names another
 * (`npm run screenshots` points it at docs/screenshots to refresh the pictures the README shows).
 */
export const SCREENSHOTS = process.env.DOCKET_SCREENSHOTS_DIR
  ? path.resolve(root, process.env.DOCKET_SCREENSHOTS_DIR)
  : path.join(os.tmpdir(), 'docket-screenshots');
export const PASSWORD = 'Correct-Horse-42';

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const e of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, e)));
  return newest;
}

/** Builds server and web app when the build is missing or older than the sources. */
export function buildIfNeeded() {
  const stamp = path.join(root, 'dist', '.build-stamp');
  const inputs = ['src', 'vite.config.ts', 'package.json', 'tsconfig.server.json'].map((p) =>
    newestMtime(path.join(root, p)),
  );
  const fresh =
    fs.existsSync(stamp) &&
    fs.existsSync(path.join(root, 'dist', 'server', 'main.js')) &&
    fs.existsSync(path.join(root, 'dist', 'web', 'index.html')) &&
    fs.statSync(stamp).mtimeMs >= Math.max(...inputs);
  if (fresh) return;
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js')], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) throw new Error('Build failed');
}

export interface Server {
  baseUrl: string;
  dataDir: string | null;
  stop: () => Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<Server> {
  if (process.env.E2E_BASE_URL)
    return { baseUrl: process.env.E2E_BASE_URL.replace(/\/$/, ''), dataDir: null, stop: async () => {} };
  buildIfNeeded();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-e2e-'));
  const server = await startProcess({
    args: [path.join(root, 'dist', 'server', 'main.js')],
    env: {
      DOCKET_DATA_DIR: dataDir,
      DATABASE_URL: '',
      DOCKET_REGISTER_LIMIT: '10000',
      DOCKET_LOGIN_LIMIT: '10000',
      // Stop at once: nothing balances these servers (docs/deploy.md, the SIGTERM drain).
      DOCKET_DRAIN_SECONDS: '0',
      ...env,
    },
    basePath: env.DOCKET_BASE_PATH,
    timeoutMs: 30_000,
  });
  return {
    baseUrl: server.url,
    dataDir,
    stop: async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a test file's browser tests share: one server, one browser, and the instance's administrator. */
export interface Suite {
  server: Server;
  browser: Browser;
  base: string;
  /** The instance's first account, its administrator (so that the test users are plain users). */
  admin: ApiClient;
}

/** Starts a test file's server and browser and signs up the administrator (in its `beforeAll`). */
export async function startSuite(env: Record<string, string> = {}): Promise<Suite> {
  const server = await startServer(env);
  const browser = await launchBrowser();
  const admin = await ApiClient.signUp(server.baseUrl, unique('admin'));
  return { server, browser, base: server.baseUrl, admin };
}

/** Closes what startSuite opened, and every page context (in the file's `afterAll`). */
export async function stopSuite(suite: { server?: Server; browser?: Browser }) {
  await closeContexts();
  await suite.browser?.close();
  await suite.server?.stop();
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

export async function newContext(
  browser: Browser,
  opts: { theme?: 'light' | 'dark'; width?: number; height?: number } = {},
) {
  const ctx = await browser.newContext({
    viewport: { width: opts.width ?? 1360, height: opts.height ?? 820 },
    colorScheme: opts.theme ?? 'light',
    reducedMotion: 'reduce',
  });
  ctx.on('page', watchErrors);
  return ctx;
}

const openContexts: BrowserContext[] = [];

/**
 * A page in a new browser context (its own cookies), signed in as `client` when one is given.
 * Uncaught page errors are printed; `closeContexts` closes every context opened here.
 */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  client?: ApiClient,
  opts: Parameters<typeof newContext>[1] = {},
): Promise<Page> {
  const ctx = await newContext(browser, opts);
  openContexts.push(ctx);
  if (client) await adoptSession(ctx, baseUrl, client);
  const page = await ctx.newPage();
  page.on('pageerror', (e: Error) => console.error('[pageerror]', e.message));
  return page;
}

export async function closeContexts() {
  for (const c of openContexts.splice(0)) await c.close().catch(() => {});
}

/** Console errors and uncaught exceptions of each page, for the checks of `screenshot`. */
const pageErrors = new WeakMap<Page, string[]>();
function watchErrors(page: Page) {
  const errors: string[] = [];
  pageErrors.set(page, errors);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
}

let seq = 0;
export const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}`.slice(0, 30);

/**
 * A project key no other test in this process has: the counter comes first, so two keys made in the
 * same millisecond still differ, and the clock's tail keeps runs against one server apart.
 */
export const uniqueKey = (prefix: string) =>
  `${prefix}${(seq++).toString(36)}${Date.now().toString(36).slice(-5)}`
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 10);

/** A small API client with its own session cookie, for seeding data quickly. */
export class ApiClient {
  cookie = '';
  constructor(readonly baseUrl: string) {}
  async req<T = any>(method: string, p: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${p}`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json', cookie: this.cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const set = res.headers.getSetCookie?.() ?? [];
    for (const c of set) if (c.startsWith('docket_session=')) this.cookie = c.split(';')[0];
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }
  static async signUp(baseUrl: string, username = unique('u'), name?: string) {
    const c = new ApiClient(baseUrl);
    const user = await c.req('POST', '/api/auth/register', { username, password: PASSWORD, name });
    await c.req('POST', '/api/auth/callback/credentials', { username, password: PASSWORD });
    return Object.assign(c, { username, userId: user.id as string });
  }
}

/** Signs a browser context in through the real sign-in form. */
export async function signInUi(page: Page, baseUrl: string, username: string, password = PASSWORD) {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Username or e-mail').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('current-user').waitFor();
}

/** Copies an API client's session into a browser context. */
export async function adoptSession(ctx: BrowserContext, baseUrl: string, client: ApiClient) {
  const [name, value] = client.cookie.split('=');
  await ctx.addCookies([{ name, value, url: baseUrl }]);
}

/**
 * Saves a screenshot to SCREENSHOTS after checking what a person would notice: the page
 * logged no error and threw nothing, shows text, and does not scroll sideways as a whole (wide
 * content scrolls in its own container).
 */
export async function screenshot(page: Page, name: string) {
  expect(pageErrors.get(page) ?? [], `console errors on ${name}`).toEqual([]);
  const layout = await page.evaluate(() => ({
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered, visible text is what counts here
    text: document.body.innerText.trim().length,
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  }));
  expect(layout.text, `visible text on ${name}`).toBeGreaterThan(0);
  expect(layout.overflow, `sideways overflow on ${name}`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: screenshotFile(name) });
}

/** The file a screenshot named `name` is saved to (its folder made when missing). */
export function screenshotFile(name: string): string {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, `${name}.png`);
}

/**
 * Presses an arrow key in a keyboard drag (dnd-kit) and waits for `expected` in the live region.
 * dnd-kit measures the droppables in the frames after a pick-up; a key pressed before that (no person
 * is this fast) finds nothing and changes nothing. So let two frames pass first, and press again
 * (three times at most) while the announcement has not changed.
 */
export async function dragKey(page: Page, key: string, expected: string) {
  const live = page.locator('[id^="DndLiveRegion"]');
  const frames = () =>
    page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (let i = 0; i < 3; i++) {
    await frames();
    const before = await live.textContent();
    await page.keyboard.press(key);
    await frames();
    if ((await live.textContent()) !== before) break;
  }
  await expect.poll(() => live.textContent()).toBe(expected);
}

/** Waits until no request is under way and nothing animates, so what a test does next acts on
 * the page's settled state (a drag measures settled rows; a click is not undone by a late refetch). */
export async function settled(page: Page) {
  await page.waitForFunction(
    () =>
      document.documentElement.dataset.busy === '0' &&
      document.getAnimations().every((a) => a.playState !== 'running'),
  );
}

/**
 * Sets a several-values filter of the board or backlog (Type, Priority, Assignee, Label) to exactly
 * `values` (the options' visible names; none for "any"): opens its list, ticks and unticks, closes it.
 */
export async function pickFilter(page: Page, label: string, values: string[]) {
  await page.getByRole('button', { name: label, exact: true }).click();
  const list = page.getByRole('group', { name: label, exact: true });
  await list.waitFor();
  for (const box of await list.getByRole('checkbox').all()) {
    const name = (await box.getAttribute('aria-label')) ?? '';
    if (values.includes(name) !== (await box.isChecked())) await box.click();
  }
  await page.keyboard.press('Escape');
  await list.waitFor({ state: 'detached' });
}

/** The names a several-values filter shows as chosen (its chips; at most two are shown in full). */
export const filterChips = (page: Page, label: string) =>
  page.getByRole('button', { name: label, exact: true }).getByTestId('filter-chip').allTextContents();

/** A project to drive a board in: its columns, and cards `Card 1`…`Card n` in the first one. */
export interface SeededBoard {
  project: { id: string; key: string };
  columns: { id: string; name: string }[];
}

/** A project named `<name> <key>` with `extraColumns` after the three default ones and `cards` tickets in To Do. */
export async function seedBoard(
  client: ApiClient,
  name: string,
  cards: number,
  extraColumns = 0,
): Promise<SeededBoard> {
  const key = uniqueKey(name.slice(0, 1));
  const project = await client.req('POST', '/api/projects', { name: `${name} ${key}`, key });
  for (let i = 1; i <= extraColumns; i++)
    await client.req('POST', `/api/projects/${project.id}/columns`, { name: `Stage ${i}` });
  const columns = await client.req('GET', `/api/projects/${project.id}/columns`);
  for (let i = 1; i <= cards; i++)
    await client.req('POST', `/api/projects/${project.id}/tickets`, {
      title: `Card ${i}`,
      columnId: columns[0].id,
    });
  return { project, columns };
}

/** The board of a seeded project, signed in as `client`, once its first card is shown. */
export async function openBoard(
  browser: Browser,
  baseUrl: string,
  client: ApiClient,
  s: SeededBoard,
  size = { width: 1440, height: 900 },
): Promise<Page> {
  const page = await openPage(browser, baseUrl, client, size);
  await page.goto(`${baseUrl}/projects/${s.project.key}`);
  await page.locator(`[data-key="${s.project.key}-1"]`).waitFor();
  await settled(page);
  return page;
}
