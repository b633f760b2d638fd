import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/server/app.js';
import { docket, type Instance, instance, root } from './helpers/cli.js';
import { PASSWORD, signIn } from './helpers/factories.js';

/** Issue 49: `docket import` refuses a malformed file as the API does, saying where, and writes nothing. */
describe('docket import of a malformed file', { timeout: 180_000 }, () => {
  let inst: Instance;
  const app = async () =>
    buildApp(loadConfig({ ...inst.env, DOCKET_REGISTER_LIMIT: '1000' }), {
      logger: false,
      webRoot: path.join(os.tmpdir(), 'docket-no-web'),
    });
  beforeAll(async () => {
    inst = await instance();
    expect((await docket(inst, ['migrate'])).code).toBe(0);
    const a = await app();
    try {
      const reg = await a.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'importer', password: PASSWORD },
      });
      expect(reg.statusCode, reg.body).toBe(201);
      const owner = await signIn(a, 'importer', PASSWORD);
      expect((await owner.post('/api/projects', { name: 'Web', key: 'WEB' })).statusCode).toBe(201);
    } finally {
      await a.close();
    }
  });
  afterAll(async () => inst.drop());

  it('a cut-short Trello board: exit status 1, the problem with its line and column, nothing written', async () => {
    const board = fs.readFileSync(path.join(root, 'test', 'fixtures', 'imports', 'trello-board.json'));
    const cut = path.join(inst.dataDir, 'board-cut.json');
    fs.writeFileSync(cut, board.subarray(0, Math.floor(board.length * 0.8)));
    const res = await docket(inst, ['import', 'trello-json', cut, '--project', 'WEB']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('The file is malformed: nothing was imported');
    expect(res.stderr).toMatch(/ {2}line \d+, column \d+: The file ends .*: it is cut short/);
    const a = await app();
    try {
      const owner = await signIn(a, 'importer', PASSWORD);
      expect((await owner.get('/api/projects/WEB/tickets')).json()).toEqual([]);
    } finally {
      await a.close();
    }
  });
});
