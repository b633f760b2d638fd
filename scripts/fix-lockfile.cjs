// Re-adds the lock entries of platform-specific optional packages (Biome, Tailwind oxide) for other
// platforms. The package registry reachable here answers 404 for them, so `npm install` leaves them out
// of package-lock.json and `npm ci` then refuses the lock. The entries carry os/cpu/libc, so npm skips
// them on every other platform without fetching. Run `node scripts/fix-lockfile.cjs` after `npm install`.
const fs = require('node:fs');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const pk = lock.packages;
let added = 0;
for (const [_path, entry] of Object.entries(pk)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies || {})) {
    const key = `node_modules/${name}`;
    if (pk[key]) continue;
    const platform = name
      .split('/')
      .pop()
      .replace(/^(cli|oxide)-/, '');
    const parts = platform.split('-');
    const e = { version, optional: true };
    const os = parts[0];
    if (os === 'wasm32') e.cpu = ['wasm32'];
    else {
      e.os = [os];
      const cpu = parts[1];
      e.cpu = [cpu === 'arm' ? 'arm' : cpu];
      if (parts.includes('musl')) e.libc = ['musl'];
    }
    pk[key] = e;
    added++;
    console.log('added', key, JSON.stringify(e));
  }
}
const sorted = {};
for (const k of Object.keys(pk).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))))
  sorted[k] = pk[k];
lock.packages = sorted;
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log('added', added);
