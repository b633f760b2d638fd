import path from 'node:path';
import os from 'node:os';
import { loadConfig } from '/work/wt/search/src/config.js';
import { buildApp } from '/work/wt/search/src/server/app.js';
const dir = process.argv[2];
const q = process.argv[3];
const config = loadConfig({ DOCKET_DATA_DIR: dir, DOCKET_LOG_LEVEL: 'silent', DOCKET_LOGIN_LIMIT: '1000' });
const app = await buildApp(config, { logger: false, webRoot: path.join(os.tmpdir(), 'docket-no-web') });
const db = app.services.db;
const raw = (db as any).sqlite ?? null;
const origArrays = db.arrays.bind(db);
(db as any).arrays = async (c: any) => { console.log('PAGE SQL:', c.sql, JSON.stringify(c.parameters).slice(0, 300)); return origArrays(c); };
const login = await app.inject({ method: 'POST', url: '/api/auth/callback/credentials', payload: { username: 'searcher0', password: 'Bench-password-42' } });
const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
for (let i = 0; i < 3; i++) {
  const s = performance.now();
  const res = await app.inject({ method: 'GET', url: `/api/search?q=${encodeURIComponent(q)}&limit=50`, headers: { cookie } });
  console.log(res.statusCode, (performance.now() - s).toFixed(1), 'ms', res.json().total);
}
await app.close();
