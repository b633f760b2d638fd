import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  dragKey,
  type newContext,
  openPage,
  type Server,
  screenshot,
  settled,
  startSuite,
  stopSuite,
  unique,
  uniqueKey,
} from './harness.js';

let server: Server;
let browser: Browser;
let base: string;

const open = (client: ApiClient, opts: Parameters<typeof newContext>[1] = {}) =>
  openPage(browser, base, client, opts);

interface Col {
  id: string;
  name: string;
  order: number;
}

async function seedProject(client: ApiClient, name = 'Settings Lab') {
  const key = uniqueKey('S');
  const project = await client.req('POST', '/api/projects', { name, key, color: '#6366F1' });
  return project as { id: string; key: string; name: string };
}

const columnsOf = async (client: ApiClient, projectId: string) =>
  (await client.req('GET', `/api/projects/${projectId}/columns`)) as Col[];
const columnNames = async (client: ApiClient, projectId: string) =>
  (await columnsOf(client, projectId)).map((c) => c.name);
const membersOf = async (client: ApiClient, projectId: string) =>
  (
    (await client.req('GET', `/api/projects/${projectId}/members`)) as {
      id: string;
      role: string;
      user: { username: string };
    }[]
  ).map((m) => `${m.user.username}:${m.role}`);

const section = (page: Page, name: string) => page.getByRole('region', { name });

async function openSettings(page: Page, key: string) {
  await page.goto(`${base}/projects/${key}/settings`);
  await section(page, 'General').waitFor();
}

/** Drags a row's handle onto another row with the mouse, in small steps as a hand would. */
async function dragOnto(page: Page, handle: Locator, target: Locator) {
  await settled(page);
  const from = (await handle.boundingBox())!;
  const to = (await target.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + 6, { steps: 3 });
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
  await page.mouse.up();
}

beforeAll(async () => {
  ({ server, browser, base } = await startSuite());
});

afterAll(() => stopSuite({ server, browser }));

describe('project settings', () => {
  it('edits the name, description and colour, palette and custom', async () => {
    const owner = await ApiClient.signUp(base);
    const project = await seedProject(owner);
    const page = await open(owner);
    await openSettings(page, project.key);
    const general = section(page, 'General');
    const save = general.getByRole('button', { name: 'Save changes' });
    expect(await save.isDisabled()).toBe(true);
    await general.getByLabel('Project name').fill('Renamed Lab');
    await general.getByLabel('Description').fill('Where the settings are tried');
    await general.getByRole('button', { name: 'Colour #EC4899' }).click();
    expect(await general.getByRole('button', { name: 'Colour #EC4899' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await save.click();
    await page.getByText('Project saved').waitFor();
    const saved = await owner.req('GET', `/api/projects/${project.id}`);
    expect([saved.name, saved.description, saved.color]).toEqual([
      'Renamed Lab',
      'Where the settings are tried',
      '#EC4899',
    ]);
    // The frame and the sidebar follow at once.
    await page.locator('header').getByText('Renamed Lab').waitFor();
    expect(await save.isDisabled()).toBe(true);

    await general.getByLabel('Custom colour').fill('#123abc');
    await general.getByLabel('Description').fill('');
    await save.click();
    await expect
      .poll(async () => {
        const p = await owner.req('GET', `/api/projects/${project.id}`);
        return [p.color, p.description];
      })
      .toEqual(['#123ABC', null]);
    // A blank name cannot be saved.
    await general.getByLabel('Project name').fill('   ');
    expect(await save.isDisabled()).toBe(true);
  });

  it('adds, renames and deletes columns, moving the tickets to the chosen column', async () => {
    const owner = await ApiClient.signUp(base);
    const project = await seedProject(owner);
    const [todo, doing] = await columnsOf(owner, project.id);
    const t1 = await owner.req('POST', `/api/projects/${project.id}/tickets`, {
      title: 'One',
      columnId: doing.id,
    });
    const t2 = await owner.req('POST', `/api/projects/${project.id}/tickets`, {
      title: 'Two',
      columnId: doing.id,
    });
    await owner.req('POST', `/api/projects/${project.id}/tickets`, { title: 'Three', columnId: todo.id });
    const page = await open(owner);
    await openSettings(page, project.key);
    const cols = section(page, 'Board columns');
    await cols.getByText('2 tickets').waitFor();

    await cols.getByLabel('New column name').fill('Review');
    await cols.getByRole('button', { name: 'Add column' }).click();
    await cols.getByLabel('Column name Review').waitFor();
    expect(await columnNames(owner, project.id)).toEqual(['To Do', 'In Progress', 'Done', 'Review']);

    // A name already used, ignoring case: the API's error, in its words.
    await cols.getByLabel('New column name').fill('review');
    await cols.getByRole('button', { name: 'Add column' }).click();
    await cols.getByRole('alert').filter({ hasText: 'Column already exists' }).waitFor();

    await cols.getByLabel('Column name Review').fill('QA');
    await cols.getByLabel('Column name Review').press('Enter');
    await expect.poll(() => columnNames(owner, project.id)).toEqual(['To Do', 'In Progress', 'Done', 'QA']);
    await cols.getByLabel('Column name QA').waitFor();

    // Escape restores the name without saving.
    await cols.getByLabel('Column name QA').fill('Nope');
    await cols.getByLabel('Column name QA').press('Escape');
    expect(await cols.getByLabel('Column name QA').inputValue()).toBe('QA');

    await cols.getByRole('button', { name: 'Delete column In Progress' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete column In Progress?' });
    await dialog.getByLabel('Move its 2 tickets to').selectOption({ label: 'QA' });
    await dialog.getByRole('button', { name: 'Delete column' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => columnNames(owner, project.id)).toEqual(['To Do', 'Done', 'QA']);
    const qa = (await columnsOf(owner, project.id)).find((c) => c.name === 'QA')!;
    for (const t of [t1, t2])
      expect((await owner.req('GET', `/api/projects/${project.id}/tickets/${t.id}`)).columnId).toBe(qa.id);
    await cols.getByText('2 tickets').waitFor();

    // An empty column goes without a question of where its tickets go.
    await cols.getByRole('button', { name: 'Delete column Done' }).click();
    const empty = page.getByRole('dialog', { name: 'Delete column Done?' });
    await empty.getByText('The column is empty.').waitFor();
    await empty.getByRole('button', { name: 'Delete column' }).click();
    await expect.poll(() => columnNames(owner, project.id)).toEqual(['To Do', 'QA']);
  });

  it('reorders columns by dragging and with the keyboard', async () => {
    const owner = await ApiClient.signUp(base);
    const project = await seedProject(owner);
    const page = await open(owner);
    await openSettings(page, project.key);
    const cols = section(page, 'Board columns');
    const handle = (name: string) => cols.getByRole('button', { name: `Move column ${name}` });
    const rows = () =>
      cols.getByTestId('column-row').evaluateAll((els) => els.map((e) => e.querySelector('input')?.value));

    await dragOnto(page, handle('Done'), cols.getByTestId('column-row').first());
    await expect.poll(() => columnNames(owner, project.id)).toEqual(['Done', 'To Do', 'In Progress']);
    await expect.poll(rows).toEqual(['Done', 'To Do', 'In Progress']);

    // Keyboard: Space picks the focused handle up, arrows move it, Space drops it; each step is announced.
    await settled(page);
    const live = page.locator('[id^="DndLiveRegion"]');
    await handle('In Progress').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toBe('Picked up column In Progress, position 3 of 3.');
    await dragKey(page, 'ArrowUp', 'Column In Progress moved to position 2 of 3.');
    await dragKey(page, 'ArrowUp', 'Column In Progress moved to position 1 of 3.');
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toBe('Column In Progress dropped at position 1 of 3.');
    await expect.poll(() => columnNames(owner, project.id)).toEqual(['In Progress', 'Done', 'To Do']);
    await expect.poll(rows).toEqual(['In Progress', 'Done', 'To Do']);

    // Escape cancels a keyboard move.
    await settled(page);
    await handle('To Do').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => live.textContent()).toBe('Picked up column To Do, position 3 of 3.');
    await dragKey(page, 'ArrowUp', 'Column To Do moved to position 2 of 3.');
    await page.keyboard.press('Escape');
    await expect.poll(() => live.textContent()).toBe('Moving column To Do was cancelled.');
    expect(await columnNames(owner, project.id)).toEqual(['In Progress', 'Done', 'To Do']);
  });

  it('adds a member found by search, changes a role, removes one, and keeps the owner rules', async () => {
    const owner = await ApiClient.signUp(base, undefined, 'Olive Owner');
    const alice = await ApiClient.signUp(base, unique('alice'), 'Alice Adams');
    const bob = await ApiClient.signUp(base, unique('bob'), 'Bob Brown');
    const project = await seedProject(owner, 'Members Lab');
    await owner.req('POST', `/api/projects/${project.id}/members`, { userId: bob.userId });
    const page = await open(owner);
    await openSettings(page, project.key);
    const members = section(page, 'Members');

    // The owner cannot leave: no Leave button on their own row, and the reason is shown.
    const mine = members.getByTestId('member-row').filter({ hasText: owner.username });
    await mine.getByText('Owner cannot leave').waitFor();
    expect(await mine.getByRole('button', { name: 'Leave' }).count()).toBe(0);

    await members.getByLabel('Role for the new member').selectOption('admin');
    await members.getByLabel('Find a user to add').fill('Alice Ad');
    const results = members.getByRole('list', { name: 'Matching users' });
    await results.getByRole('button', { name: `Add ${alice.username}` }).click();
    await members.getByLabel(`Role of ${alice.username}`).waitFor();
    // The row keeps room for the name next to a narrow role picker.
    const aliceName = members
      .getByTestId('member-row')
      .filter({ hasText: alice.username })
      .getByText('Alice Adams');
    expect((await aliceName.boundingBox())!.width).toBeGreaterThan(120);
    expect((await members.getByLabel(`Role of ${alice.username}`).boundingBox())!.width).toBeLessThan(130);
    expect(await membersOf(owner, project.id)).toEqual([
      `${owner.username}:owner`,
      `${alice.username}:admin`,
      `${bob.username}:member`,
    ]);
    // Members are not offered again.
    await members.getByLabel('Find a user to add').fill(bob.username);
    await results.getByText('No user to add matches.').waitFor();
    await members.getByLabel('Find a user to add').fill('');

    await members.getByLabel(`Role of ${bob.username}`).selectOption('admin');
    await expect.poll(() => membersOf(owner, project.id)).toContain(`${bob.username}:admin`);

    await members.getByRole('button', { name: `Remove ${bob.username}` }).click();
    const remove = page.getByRole('dialog', { name: `Remove ${bob.username}?` });
    await remove.getByRole('button', { name: 'Remove member' }).click();
    await remove.waitFor({ state: 'detached' });
    await expect
      .poll(() => membersOf(owner, project.id))
      .toEqual([`${owner.username}:owner`, `${alice.username}:admin`]);
    await expect.poll(() => members.getByTestId('member-row').count()).toBe(2);

    // Handing the project over: Alice becomes the owner, the previous owner an admin, who can no
    // longer change the owner's role and may now leave.
    // Handing over asks first; cancelling changes nothing.
    const roleOfAlice = members.getByLabel(`Role of ${alice.username}`);
    await roleOfAlice.selectOption('owner');
    const handOver = page.getByRole('dialog', { name: `Make ${alice.username} the owner?` });
    await handOver.getByRole('button', { name: 'Cancel' }).click();
    await handOver.waitFor({ state: 'detached' });
    expect(await roleOfAlice.inputValue()).toBe('admin');
    expect(await membersOf(owner, project.id)).toContain(`${alice.username}:admin`);
    await roleOfAlice.selectOption('owner');
    await handOver.getByRole('button', { name: 'Transfer ownership' }).click();
    await expect
      .poll(() => membersOf(owner, project.id))
      .toEqual([`${alice.username}:owner`, `${owner.username}:admin`]);
    const aliceRow = members.getByTestId('member-row').filter({ hasText: alice.username });
    await aliceRow.getByText('owner', { exact: true }).waitFor();
    expect(await members.getByLabel(`Role of ${alice.username}`).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Delete project' }).count()).toBe(0);

    await mine.getByRole('button', { name: 'Leave' }).click();
    const leave = page.getByRole('dialog', { name: 'Leave Members Lab?' });
    await leave.getByRole('button', { name: 'Leave project' }).click();
    await page.waitForURL(`${base}/`);
    expect(await membersOf(alice, project.id)).toEqual([`${alice.username}:owner`]);
    await expect(owner.req('GET', `/api/projects/${project.id}`)).rejects.toThrow(/404/);
  });

  it('lets a plain member leave and manage labels, but not the rest', async () => {
    const owner = await ApiClient.signUp(base);
    const member = await ApiClient.signUp(base);
    const project = await seedProject(owner, 'Member View');
    await owner.req('POST', `/api/projects/${project.id}/members`, { userId: member.userId });
    const page = await open(member);
    await openSettings(page, project.key);
    await page.getByText('You are a member of this project').waitFor();
    expect(await section(page, 'General').getByLabel('Project name').isDisabled()).toBe(true);
    expect(await section(page, 'General').getByRole('button', { name: 'Save changes' }).count()).toBe(0);
    expect(await section(page, 'Board columns').getByLabel('New column name').count()).toBe(0);
    expect(await section(page, 'Members').getByLabel('Find a user to add').count()).toBe(0);
    expect(
      await section(page, 'Sprint settings').getByRole('button', { name: 'Save sprint settings' }).count(),
    ).toBe(0);
    expect(await page.getByRole('region', { name: 'Delete project' }).count()).toBe(0);

    const labels = section(page, 'Labels');
    await labels.getByLabel('New label name').fill('needs-design');
    await labels.getByRole('button', { name: 'Add label' }).click();
    await labels.getByLabel('Label name needs-design').waitFor();
    expect(
      (await owner.req('GET', `/api/projects/${project.id}/labels`)).map((l: { name: string }) => l.name),
    ).toEqual(['needs-design']);

    await section(page, 'Members').getByRole('button', { name: 'Leave' }).click();
    await page
      .getByRole('dialog', { name: 'Leave Member View?' })
      .getByRole('button', { name: 'Leave project' })
      .click();
    await page.waitForURL(`${base}/`);
    expect(await membersOf(owner, project.id)).toEqual([`${owner.username}:owner`]);
  });

  it('adds, renames, recolours and deletes labels', async () => {
    const owner = await ApiClient.signUp(base);
    const project = await seedProject(owner);
    const ticket = await owner.req('POST', `/api/projects/${project.id}/tickets`, { title: 'Labelled' });
    const page = await open(owner);
    await openSettings(page, project.key);
    const labels = section(page, 'Labels');
    await labels.getByText('No labels yet.').waitFor();
    const labelsOf = async () =>
      (
        (await owner.req('GET', `/api/projects/${project.id}/labels`)) as { name: string; color: string }[]
      ).map((l) => `${l.name} ${l.color}`);

    await labels.getByLabel('New label name').fill('bug');
    await labels.getByRole('button', { name: 'Label colour #EF4444' }).click();
    await labels.getByRole('button', { name: 'Add label' }).click();
    await labels.getByLabel('Label name bug').waitFor();
    expect(await labelsOf()).toEqual(['bug #EF4444']);
    expect(await labels.getByLabel('New label name').inputValue()).toBe('');

    await labels.getByLabel('New label name').fill('BUG');
    await labels.getByRole('button', { name: 'Add label' }).click();
    await labels.getByRole('alert').filter({ hasText: 'Label already exists' }).waitFor();

    await labels.getByLabel('Label name bug').fill('defect');
    await labels.getByLabel('Label name bug').press('Enter');
    await expect.poll(labelsOf).toEqual(['defect #EF4444']);
    await labels.getByLabel('Colour of label defect').fill('#00aa55');
    await expect.poll(labelsOf).toEqual(['defect #00AA55']);

    const [label] = await owner.req('GET', `/api/projects/${project.id}/labels`);
    await owner.req('PATCH', `/api/projects/${project.id}/tickets/${ticket.id}`, { labelIds: [label.id] });
    await labels.getByRole('button', { name: 'Delete label defect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete label defect?' });
    await dialog.getByText('It is removed from every ticket that has it.').waitFor();
    await dialog.getByRole('button', { name: 'Delete label' }).click();
    await labels.getByText('No labels yet.').waitFor();
    expect(await labelsOf()).toEqual([]);
    expect((await owner.req('GET', `/api/projects/${project.id}/tickets/${ticket.id}`)).labels).toEqual([]);
  });

  it('saves the sprint settings: length, carry-over and the done columns', async () => {
    const owner = await ApiClient.signUp(base);
    const project = await seedProject(owner);
    const [, doing, done] = await columnsOf(owner, project.id);
    const page = await open(owner);
    await openSettings(page, project.key);
    const sprint = section(page, 'Sprint settings');
    await sprint.getByText('None chosen: the last column (Done) counts as done.').waitFor();
    expect(await sprint.getByLabel('Default sprint length').inputValue()).toBe('2');

    await sprint.getByLabel('Default sprint length').selectOption('3');
    await sprint.getByLabel('Carry incomplete tickets over to the next sprint by default').check();
    await sprint.getByLabel('In Progress', { exact: true }).check();
    await sprint.getByLabel('Done', { exact: true }).check();
    await sprint.getByText('A ticket in any of these columns is complete.').waitFor();
    await sprint.getByRole('button', { name: 'Save sprint settings' }).click();
    await page.getByText('Sprint settings saved').waitFor();
    const saved = await owner.req('GET', `/api/projects/${project.id}/sprints/settings`);
    expect(saved.defaultSprintDuration).toBe(3);
    expect(saved.autoCarryOverIncomplete).toBe(true);
    expect([...saved.doneColumnIds].sort()).toEqual([doing.id, done.id].sort());

    await page.reload();
    await section(page, 'Sprint settings').getByLabel('Default sprint length').waitFor();
    expect(await sprint.getByLabel('Default sprint length').inputValue()).toBe('3');
    expect(await sprint.getByLabel('In Progress', { exact: true }).isChecked()).toBe(true);
    expect(await sprint.getByLabel('To Do', { exact: true }).isChecked()).toBe(false);

    // Back to the defaults.
    await sprint.getByLabel('Carry incomplete tickets over to the next sprint by default').uncheck();
    await sprint.getByLabel('In Progress', { exact: true }).uncheck();
    await sprint.getByLabel('Done', { exact: true }).uncheck();
    await sprint.getByRole('button', { name: 'Save sprint settings' }).click();
    await expect
      .poll(async () => {
        const s = await owner.req('GET', `/api/projects/${project.id}/sprints/settings`);
        return [s.autoCarryOverIncomplete, s.doneColumnIds];
      })
      .toEqual([false, []]);
  });

  it('deletes the project only after its key is typed', async () => {
    const owner = await ApiClient.signUp(base);
    const project = await seedProject(owner, 'Doomed');
    const page = await open(owner);
    await openSettings(page, project.key);
    await section(page, 'Delete project').getByRole('button', { name: 'Delete this project…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Doomed?' });
    const confirm = dialog.getByRole('button', { name: 'Delete project' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${project.key} to confirm`).fill(project.key.toLowerCase());
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await owner.req('GET', `/api/projects/${project.id}`)).key).toBe(project.key);

    await section(page, 'Delete project').getByRole('button', { name: 'Delete this project…' }).click();
    await dialog.getByLabel(`Type ${project.key} to confirm`).fill(project.key);
    await confirm.click();
    await page.waitForURL(`${base}/`);
    await expect(owner.req('GET', `/api/projects/${project.id}`)).rejects.toThrow(/404/);
    expect(await page.getByRole('link', { name: /Doomed/ }).count()).toBe(0);
  });

  it('looks right in both themes', async () => {
    const owner = await ApiClient.signUp(base, undefined, 'Olive Owner');
    const ada = await ApiClient.signUp(base, unique('ada'), 'Ada Lovelace');
    const project = await seedProject(owner, 'Web Platform');
    await owner.req('PATCH', `/api/projects/${project.id}`, {
      description: 'The public web app and its design system.',
    });
    await owner.req('POST', `/api/projects/${project.id}/members`, { userId: ada.userId, role: 'admin' });
    for (const [name, color] of [
      ['bug', '#EF4444'],
      ['design', '#EC4899'],
      ['performance', '#F59E0B'],
    ])
      await owner.req('POST', `/api/projects/${project.id}/labels`, { name, color });
    await owner.req('POST', `/api/projects/${project.id}/columns`, { name: 'Review', order: 2 });
    for (const theme of ['light', 'dark'] as const) {
      const page = await open(owner, { theme, height: 1800 });
      await openSettings(page, project.key);
      await section(page, 'Labels').getByLabel('Label name performance').waitFor();
      await section(page, 'Sprint settings').getByLabel('Default sprint length').waitFor();
      await section(page, 'Members').getByLabel(`Role of ${ada.username}`).waitFor();
      await screenshot(page, `settings-${theme}`);
    }
  });
});
