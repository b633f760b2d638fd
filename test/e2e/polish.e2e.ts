/**
 * The rough edges of issue 23, each as a person meets it: GitHub-flavoured Markdown and images in
 * descriptions and comments, page titles, focus rings, the phone layouts of backlog and reports, the
 * platform's shortcut symbol, a plain "not found", the app's own dialogs, the New-ticket dialog's
 * focus trap, and the offline indicator. Screenshots of the changed screens in both themes.
 */

import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  closeContexts,
  type newContext,
  openPage,
  type Server,
  screenshot,
  screenshotFile,
  settled,
  startSuite,
  stopSuite,
  unique,
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;
let owner: ApiClient & { username: string };
let mate: ApiClient & { username: string };
let project: { id: string; key: string; name: string };
let columns: { id: string; name: string }[];

const open = (client?: ApiClient, opts: Parameters<typeof newContext>[1] = {}) =>
  openPage(browser, base, client, opts);
const PHONE = { width: 390, height: 844 };
const THEMES = ['light', 'dark'] as const;

/** A screenshot where the harness's console check does not apply (an offline page logs failed requests). */
const shot = (page: Page, name: string) => page.screenshot({ path: screenshotFile(name) });

const ticketUrl = (ref: string) => `${base}/projects/${project.key}/${ref}`;
const apiTicket = (ref: string) => owner.req('GET', `/api/projects/${project.id}/tickets/${ref}`);

async function ticket(fields: Record<string, unknown>) {
  return owner.req('POST', `/api/projects/${project.id}/tickets`, { columnId: columns[0].id, ...fields });
}

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
  owner = await ApiClient.signUp(base, unique('ada'), 'Ada Lovelace');
  mate = await ApiClient.signUp(base, unique('lin'), 'Linus Park');
  const key = `PL${Date.now().toString(36).slice(-4).toUpperCase()}`;
  project = await owner.req('POST', '/api/projects', { name: 'Polish', key, color: '#6366F1' });
  columns = await owner.req('GET', `/api/projects/${project.id}/columns`);
  await owner.req('POST', `/api/projects/${project.id}/members`, { username: mate.username });
});

// Each page holds event streams, and a session may hold only so many: close them after each test.
afterEach(() => closeContexts());

afterAll(() => stopSuite({ server, browser }));

describe('phone layouts', () => {
  it('backlog: the sort menu sits beside the filters, not over them, and titles keep their words', async () => {
    for (let i = 0; i < 4; i++)
      await ticket({ title: `Make the importer accept Jira exports with repeated columns ${i + 1}` });
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(owner, { ...PHONE, theme });
      await page.goto(`${base}/projects/${project.key}/backlog`);
      await page.getByText('Make the importer accept', { exact: false }).first().waitFor();
      await settled(page);
      const sort = await page.getByLabel('Sort by').boundingBox();
      const boxes = await page
        .locator('fieldset:has(legend:text("Filters")) > *')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
      expect(sort).not.toBeNull();
      for (const b of boxes) {
        if (b.width === 0) continue;
        const overlaps =
          sort!.x < b.x + b.width &&
          b.x < sort!.x + sort!.width &&
          sort!.y < b.y + b.height &&
          b.y < sort!.y + sort!.height;
        expect(overlaps, 'the sort menu covers a filter').toBe(false);
      }
      // A title shows more than a handful of characters.
      const title = page.getByText('Make the importer accept', { exact: false }).first();
      const visible = await title.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return Math.min(r.right, window.innerWidth) - Math.max(r.left, 0);
      });
      expect(visible).toBeGreaterThan(150);
      await screenshot(page, `polish-backlog-phone-${theme}`);
    }
  });

  it('reports: the sprint dates stay inside the screen', async () => {
    const sprint = await owner.req('POST', `/api/projects/${project.id}/sprints`, {
      name: 'Sprint with a rather long name 1',
      goal: 'Ship the importer and the exporter',
    });
    await owner.req('POST', `/api/projects/${project.id}/sprints/${sprint.id}/start`, {
      startDate: '2026-11-20',
      endDate: '2026-12-04',
    });
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(owner, { ...PHONE, theme });
      await page.goto(`${base}/projects/${project.key}/reports`);
      const summary = page.getByTestId('sprint-summary');
      await summary.waitFor();
      await settled(page);
      const overflow = await page.evaluate(() => {
        const out: string[] = [];
        for (const el of document.querySelectorAll<HTMLElement>('main *')) {
          const r = el.getBoundingClientRect();
          // What scrolls in its own container or is there only for screen readers does not count.
          let clipped = false;
          for (let a = el.parentElement; a && !clipped; a = a.parentElement)
            clipped = getComputedStyle(a).overflowX !== 'visible' || a.classList.contains('sr-only');
          if (r.width > 0 && r.right > window.innerWidth + 0.5 && !clipped && !el.closest('.sr-only'))
            out.push(`${el.tagName}.${el.className}`.slice(0, 80));
        }
        return out;
      });
      expect(overflow).toEqual([]);
      // The dates read on one line, not a word per line.
      const dates = await page.getByTestId('sprint-dates').evaluate((el) => el.getClientRects().length);
      expect(dates).toBe(1);
      const lines = await page
        .getByTestId('sprint-dates')
        .evaluate((el) =>
          Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)),
        );
      expect(lines).toBe(1);
      await screenshot(page, `polish-reports-phone-${theme}`);
    }
  });
});

describe('GitHub-flavoured Markdown', () => {
  it('renders tables, task lists, strikethrough, autolinks, ticket keys and mentions; a box ticks through the update API', async () => {
    const target = await ticket({ title: 'Parser groundwork' });
    const doc = await ticket({
      title: 'Markdown in descriptions',
      description: [
        '| Step | Owner |',
        '|---|---|',
        `| Parse | @${mate.username} |`,
        '',
        '- [ ] write the parser',
        '- [x] read the spec',
        '',
        `~~old plan~~ see https://example.com/spec and ${target.key}.`,
        '',
        '![diagram](https://images.example.com/diagram.png)',
      ].join('\n'),
    });
    for (const theme of THEMES) {
      const page = await open(owner, { theme, width: 1440, height: 900 });
      const outside: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('images.example.com')) outside.push(r.url());
      });
      await page.goto(ticketUrl(doc.key));
      const description = page.getByTestId('description');
      await description.locator('table').waitFor();
      expect(await description.locator('th').allTextContents()).toEqual(['Step', 'Owner']);
      expect(await description.locator(`a[data-mention="${mate.username}"]`).count()).toBe(1);
      expect(await description.locator('del').textContent()).toBe('old plan');
      expect(await description.locator('a[href="https://example.com/spec"]').count()).toBe(1);
      const ref = description.locator(`a[data-ticket-key="${target.key}"]`);
      expect(await ref.getAttribute('href')).toContain(`/projects/${project.key}/${target.key}`);
      // An image from another site is a link to it; the page never asks that site for it.
      expect(await description.locator('img').count()).toBe(0);
      expect(await description.getByRole('link', { name: 'Image: diagram' }).getAttribute('href')).toBe(
        'https://images.example.com/diagram.png',
      );
      expect(outside).toEqual([]);
      const boxes = description.getByRole('checkbox', { name: 'Task done' });
      expect(await boxes.count()).toBe(2);
      expect(await boxes.nth(1).isChecked()).toBe(true);
      await screenshot(page, `polish-markdown-${theme}`);
      if (theme === 'light') {
        // Ticking the first box changes that character of the source, through the normal update.
        await boxes.first().check();
        await expect
          .poll(async () => (await apiTicket(doc.key)).description)
          .toContain('- [x] write the parser\n- [x] read the spec');
        expect(await page.getByTestId('description-input').count()).toBe(0);
        // The ticket key leads to that ticket, inside the app.
        await ref.click();
        await page.getByTestId('ticket-drawer').getByText('Parser groundwork').first().waitFor();
        expect(page.url()).toBe(ticketUrl(target.key));
      }
    }
  });

  it('task boxes in a comment tick for its author only', async () => {
    const t = await ticket({ title: 'Comment tasks' });
    await owner.req('POST', `/api/projects/${project.id}/tickets/${t.key}/comments`, {
      content: '- [ ] check the importer',
    });
    const mates = await open(mate);
    await mates.goto(ticketUrl(t.key));
    const box = mates.getByTestId('comment').getByRole('checkbox', { name: 'Task done' });
    await box.waitFor();
    expect(await box.isDisabled()).toBe(true);
    const page = await open(owner);
    await page.goto(ticketUrl(t.key));
    await page.getByTestId('comment').getByRole('checkbox', { name: 'Task done' }).check();
    await expect
      .poll(
        async () =>
          (await owner.req('GET', `/api/projects/${project.id}/tickets/${t.key}/comments`))[0].content,
      )
      .toBe('- [x] check the importer');
  });

  it('uploads images pasted into a description or dropped into a comment as attachments, shown inline', async () => {
    const t = await ticket({ title: 'Screenshots welcome' });
    const png = (
      await sharp({ create: { width: 40, height: 30, channels: 3, background: '#e11d48' } })
        .png()
        .toBuffer()
    ).toString('base64');
    const page = await open(owner, { width: 1440, height: 900 });
    await page.goto(ticketUrl(t.key));
    await page.getByRole('button', { name: 'Edit description' }).click();
    const input = page.getByTestId('description-input');
    await input.fill('Before the picture:\n');
    const deliver = (selector: string, kind: 'paste' | 'drop', name: string) =>
      page.evaluate(
        ({ selector, kind, png, name }) => {
          const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
          const data = new DataTransfer();
          data.items.add(new File([bytes], name, { type: 'image/png' }));
          const el = document.querySelector<HTMLTextAreaElement>(selector)!;
          el.focus();
          el.setSelectionRange(el.value.length, el.value.length);
          const event =
            kind === 'paste'
              ? new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })
              : new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true });
          el.dispatchEvent(event);
        },
        { selector, kind, png, name },
      );
    await deliver('[data-testid="description-input"]', 'paste', 'pasted.png');
    await expect.poll(() => input.inputValue()).toMatch(/!\[pasted\.png\]\(\/uploads\/attachments\/[^)]+\)/);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const shown = page.getByTestId('description').locator('img[alt="pasted.png"]');
    await shown.waitFor();
    await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(40);

    await deliver('[data-testid="comment-input"]', 'drop', 'dropped.png');
    const comment = page.getByTestId('comment-input');
    await expect
      .poll(() => comment.inputValue())
      .toMatch(/!\[dropped\.png\]\(\/uploads\/attachments\/[^)]+\)/);
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    const inComment = page.getByTestId('comment').locator('img[alt="dropped.png"]');
    await inComment.waitFor();
    await expect.poll(() => inComment.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(40);
    // Each image is one attachment of the ticket: the drawer's own drop zone did not attach it again.
    const files = await owner.req('GET', `/api/projects/${project.id}/tickets/${t.key}/attachments`);
    expect(files.map((f: { filename: string }) => f.filename).sort()).toEqual(['dropped.png', 'pasted.png']);
  });
});

describe('rough edges', () => {
  it('titles each page: the project page, and a ticket by its key and title', async () => {
    const t = await ticket({ title: 'Titled ticket' });
    const page = await open(owner);
    await page.goto(`${base}/`);
    await expect.poll(() => page.title()).toBe('Projects · Docket');
    await page.goto(`${base}/projects/${project.key}`);
    await expect.poll(() => page.title()).toBe('Board · Polish · Docket');
    await page.goto(ticketUrl(t.key));
    await expect.poll(() => page.title()).toBe(`${t.key} Titled ticket · Docket`);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.title()).toBe('Board · Polish · Docket');
    await page.goto(`${base}/projects/${project.key}/backlog`);
    await expect.poll(() => page.title()).toBe('Backlog · Polish · Docket');
  });

  it('shows a focus ring of at least 2 px on every control reached by Tab, form fields included', async () => {
    const page = await open(owner, { width: 1440, height: 900 });
    const missing = new Set<string>();
    const tabThrough = async (times: number) => {
      for (let i = 0; i < times; i++) {
        await page.keyboard.press('Tab');
        const ring = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          if (!el || el === document.body) return null;
          const s = getComputedStyle(el);
          const label = `${el.tagName.toLowerCase()} ${el.getAttribute('type') ?? ''} ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? ''}`;
          return { label, ok: s.outlineStyle !== 'none' && Number.parseFloat(s.outlineWidth) >= 2 };
        });
        if (ring && !ring.ok) missing.add(ring.label);
      }
    };
    await page.goto(`${base}/projects/${project.key}/backlog`);
    await page.getByText('Make the importer accept', { exact: false }).first().waitFor();
    await settled(page);
    await tabThrough(30);
    await page.goto(`${base}/projects/${project.key}`);
    await page.getByRole('button', { name: 'New ticket' }).click();
    await page.getByRole('dialog', { name: 'New ticket' }).waitFor();
    await tabThrough(12);
    expect([...missing]).toEqual([]);
  });

  it('keeps focus inside the New-ticket dialog however often Tab is pressed', async () => {
    const page = await open(owner);
    await page.goto(`${base}/projects/${project.key}`);
    await page.getByRole('button', { name: 'New ticket' }).click();
    const dialog = page.getByRole('dialog', { name: 'New ticket' });
    await dialog.waitFor();
    await dialog.getByLabel('Title').fill('Focus stays');
    let outside = 0;
    for (const key of ['Tab', 'Shift+Tab']) {
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press(key);
        if (
          !(await page.evaluate(
            () => !!document.querySelector('[role="dialog"]')?.contains(document.activeElement),
          ))
        )
          outside++;
      }
    }
    expect(outside).toBe(0);
  });

  it('shows the platform’s shortcut symbol: Ctrl on Linux and Windows, ⌘ on a Mac', async () => {
    const page = await open(owner, { width: 1440, height: 900 });
    await page.goto(`${base}/`);
    const kbd = page.getByRole('button', { name: /Search or jump to/ }).locator('kbd');
    expect(await kbd.textContent()).toBe('Ctrl+K');
    const mac = await open(owner, { width: 1440, height: 900 });
    await mac.addInitScript(() => {
      Object.defineProperty(navigator, 'platform', { get: () => 'MacIntel' });
      Object.defineProperty(navigator, 'userAgentData', { get: () => ({ platform: 'macOS' }) });
    });
    await mac.goto(`${base}/`);
    expect(
      await mac
        .getByRole('button', { name: /Search or jump to/ })
        .locator('kbd')
        .textContent(),
    ).toBe('⌘K');
  });

  it('says plainly that a missing ticket is not there, with the way back and no "Try again"', async () => {
    for (const theme of THEMES) {
      const page = await open(owner, { theme, width: 1440, height: 900 });
      await page.goto(ticketUrl(`${project.key}-9999`));
      const drawer = page.getByTestId('ticket-drawer');
      await drawer.getByText('Ticket not found').waitFor();
      expect(await drawer.getByRole('button', { name: 'Try again' }).count()).toBe(0);
      await shot(page, `polish-ticket-not-found-${theme}`);
      if (theme === 'dark') {
        await drawer.getByRole('button', { name: 'Back to Polish' }).click();
        await drawer.waitFor({ state: 'detached' });
        expect(page.url()).toBe(`${base}/projects/${project.key}`);
      }
    }
  });

  it('asks before deleting a comment in the app’s own dialog, not the browser’s', async () => {
    for (const theme of THEMES) {
      const t = await ticket({ title: `Comment to delete (${theme})` });
      await owner.req('POST', `/api/projects/${project.id}/tickets/${t.key}/comments`, {
        content: 'Short-lived',
      });
      const page = await open(owner, { theme, width: 1440, height: 900 });
      const native: string[] = [];
      page.on('dialog', (d) => {
        native.push(d.message());
        void d.dismiss();
      });
      await page.goto(ticketUrl(t.key));
      await page.getByTestId('comment').getByRole('button', { name: 'Delete' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this comment?' });
      await dialog.waitFor();
      await screenshot(page, `polish-delete-comment-${theme}`);
      await dialog.getByRole('button', { name: 'Delete comment' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('comment').waitFor({ state: 'detached' });
      expect(native).toEqual([]);
      expect(await owner.req('GET', `/api/projects/${project.id}/tickets/${t.key}/comments`)).toEqual([]);
      await page.context().close();
    }
  });

  it('shows that the browser is offline and how many changes wait, and sends them when it is back', async () => {
    const t = await ticket({ title: 'Edited offline' });
    for (const theme of THEMES) {
      const page = await open(owner, { theme, width: 1440, height: 900 });
      await page.goto(ticketUrl(t.key));
      const title = page.getByTestId('title-input');
      await title.waitFor();
      await settled(page);
      expect(await page.getByTestId('offline-indicator').count()).toBe(0);
      await page.context().setOffline(true);
      const indicator = page.getByTestId('offline-indicator');
      await indicator.getByText('Offline', { exact: false }).waitFor();
      if (theme === 'dark') {
        await shot(page, `polish-offline-${theme}`);
        await page.context().setOffline(false);
        continue;
      }
      await title.fill('Edited while offline');
      await title.press('Enter');
      await indicator.getByText('1 change waiting to be sent', { exact: false }).waitFor();
      await shot(page, `polish-offline-${theme}`);
      expect((await apiTicket(t.key)).title).toBe('Edited offline');
      await page.context().setOffline(false);
      await indicator.waitFor({ state: 'detached' });
      await expect.poll(async () => (await apiTicket(t.key)).title).toBe('Edited while offline');
    }
  });
});
