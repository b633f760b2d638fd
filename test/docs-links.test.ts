import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every file a document names exists: README.md and docs/**\/*.md, their Markdown links to files of
 * the repository and the paths they name in backticks (`src/db/changes.ts`). A path that starts
 * with a top folder of the repository (src/, test/, docs/, …) must exist as written (from the
 * repository's root, or from the document's folder); a shorter one (`db/changes.ts`,
 * `pages/board.tsx`, as ARCHITECTURE.md names files inside a folder it just named) must be the end
 * of some file's path. Names of files that only exist at run time or after a build are listed below.
 */
const root = path.resolve(import.meta.dirname, '..');

/** Files and folders under version control (and new ones not ignored), relative to the root. */
function repoFiles(): { files: Set<string>; dirs: Set<string> } {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  const files = new Set(out.split('\n').filter((f) => f && fs.existsSync(path.join(root, f))));
  const dirs = new Set<string>();
  for (const f of files) for (let d = path.dirname(f); d !== '.'; d = path.dirname(d)) dirs.add(d);
  return { files, dirs };
}

const TOP = /^(src|test|docs|bench|scripts|deploy|bin|\.ci)\//;
/** Things that look like paths but are made at run time, by the build, or on the operator's machine. */
const NOT_IN_REPO = [
  /^dist(\/|$)/,
  /^node_modules\//,
  /(^|\/)docket\.db(-wal|-shm)?$/,
  /^\.env$/,
  /^uploads\//,
  /^\.incoming$/,
  /^tmp\//,
];
const FILE_LIKE = /^[\w.@-]+(\/[\w.@-]+)*\/?$/;
const CODE_EXT = /\.(ts|tsx|js|cjs|mjs|json|md|cfg|yml|yaml|sh)$/;
const EXT = /\.(ts|tsx|js|cjs|mjs|json|md|cfg|yml|yaml|html|css|sh|png|csv|txt|sql)$/;

interface Named {
  doc: string;
  line: number;
  target: string;
  how: 'link' | 'code';
}

function docs(): string[] {
  const list = ['README.md'];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) list.push(rel);
    }
  };
  walk('docs');
  return list;
}

/** The files a document names: link targets inside the repository, and path-like code spans. */
function named(doc: string): Named[] {
  const out: Named[] = [];
  const lines = fs.readFileSync(path.join(root, doc), 'utf8').split('\n');
  let fenced = false;
  lines.forEach((text, i) => {
    if (/^\s*```/.test(text)) fenced = !fenced;
    if (fenced) return;
    // Links outside code spans (`[name](<address>)` in backticks is an example, not a link).
    for (const m of text.replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1].split('#')[0];
      if (!target || /^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:, or an anchor
      out.push({ doc, line: i + 1, target: decodeURI(target), how: 'link' });
    }
    for (const m of text.matchAll(/`([^`\n]+)`/g)) {
      const raw = m[1].trim().replace(/:\d+(-\d+)?$/, ''); // `file.ts:140` names a line
      if (!FILE_LIKE.test(raw) || raw.startsWith('@') || !(TOP.test(raw) || EXT.test(raw))) continue;
      // A bare file name counts when it names source or configuration (`app.ts`), not an example
      // upload (`passwd.png`); a path that climbs out of the repository is an example too.
      if (!raw.includes('/') && !CODE_EXT.test(raw)) continue;
      if (raw.startsWith('../')) continue;
      out.push({ doc, line: i + 1, target: raw, how: 'code' });
    }
  });
  return out;
}

function exists(n: Named, repo: { files: Set<string>; dirs: Set<string> }): boolean {
  const target = n.target.replace(/\/$/, '');
  if (NOT_IN_REPO.some((re) => re.test(target))) return true;
  const has = (p: string) => repo.files.has(p) || repo.dirs.has(p);
  const fromDoc = path.normalize(path.join(path.dirname(n.doc), target));
  if (has(path.normalize(target)) || has(fromDoc)) return true;
  if (n.how === 'link' || TOP.test(target)) return false;
  // A module of an installed package (`stream-json/core/parser.js`, through its exports).
  const pkg = target
    .split('/')
    .slice(0, target.startsWith('@') ? 2 : 1)
    .join('/');
  if (target.includes('/') && fs.existsSync(path.join(root, 'node_modules', pkg, 'package.json')))
    return true;
  // A shorter path: the end of some file's or folder's path.
  const tail = `/${target}`;
  for (const f of repo.files) if (f.endsWith(tail) || f === target) return true;
  for (const d of repo.dirs) if (d.endsWith(tail)) return true;
  return false;
}

describe('documents name files that exist', () => {
  const repo = repoFiles();
  const all = docs().flatMap(named);

  it('reads the documents and finds the names in them', () => {
    expect(docs()).toContain('docs/ARCHITECTURE.md');
    expect(all.filter((n) => n.how === 'link').length).toBeGreaterThan(50);
    expect(all.filter((n) => n.how === 'code').length).toBeGreaterThan(200);
    // A name that is not there is found missing (the check can fail).
    expect(
      exists({ doc: 'README.md', line: 1, target: 'src/domain/no-such-file.ts', how: 'code' }, repo),
    ).toBe(false);
    expect(exists({ doc: 'README.md', line: 1, target: 'domain/no-such-file.ts', how: 'code' }, repo)).toBe(
      false,
    );
  });

  it('every linked file and every path in backticks exists', () => {
    const missing = all.filter((n) => !exists(n, repo)).map((n) => `${n.doc}:${n.line} ${n.target}`);
    expect(missing).toEqual([]);
  });
});
