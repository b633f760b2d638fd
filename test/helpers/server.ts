/**
 * Starting a server as a child process, for the tests that need a real process (faults, several
 * instances, browser tests) and for the benches: the one way to spawn, wait until it answers, and
 * stop it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  /** The base URL, with the base path when one is set. */
  url: string;
  child: ChildProcess;
  /** Milliseconds from spawn until it answered. */
  ms: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs` (default 5 s); resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  /** Node arguments: a script, or `['--import', 'tsx', 'src/server/main.ts']`. */
  args: string[];
  env?: Record<string, string>;
  /**
   * How to know it is ready: a line `listening at <url>` (the bare bench server), or, for Docket at
   * any log level, GET /api/health on a port chosen here (PORT and HOST are set).
   */
  ready?: 'listening' | 'health';
  /** Docket's DOCKET_BASE_PATH, for the health URL. */
  basePath?: string;
  timeoutMs?: number;
  /** Called with each chunk of stdout once the server is ready (e.g. to collect error lines). */
  onStdout?: (chunk: string) => void;
}

/** Starts a server process and waits until it answers. */
export async function startProcess(opts: StartOptions): Promise<ServerProcess> {
  const ready = opts.ready ?? 'health';
  const port = ready === 'health' ? await freePort() : 0;
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...(opts.env ?? {}) };
  if (ready === 'health') {
    env.PORT = String(port);
    env.HOST = '127.0.0.1';
  }
  const t0 = performance.now();
  const child = spawn(process.execPath, opts.args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let isReady = false;
  child.stdout?.on('data', (b: Buffer) => {
    const text = b.toString();
    if (isReady) opts.onStdout?.(text);
    else out += text;
  });
  child.stderr?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (graceMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 45_000);
  let url = `http://127.0.0.1:${port}${opts.basePath ?? ''}`;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${opts.args.join(' ')} exited with ${child.exitCode}:\n${out}`);
    if (ready === 'listening') {
      const m = /listening at (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        url = m[1];
        break;
      }
    } else {
      const ok = await fetch(`${url}/api/health`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
    }
    if (Date.now() > deadline) {
      await stop(0);
      throw new Error(`${opts.args.join(' ')} did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  isReady = true;
  return { url, child, ms: Math.round(performance.now() - t0), output: () => out, stop };
}

/**
 * Node arguments that run a file of src/ (`src/server/main.ts`): in a test run, its copy transpiled
 * once for the run (test/helpers/compiled-global.ts, DOCKET_TEST_COMPILED_SRC); elsewhere (benches)
 * the source itself through tsx.
 */
export function sourceArgs(file: string): string[] {
  const compiled = process.env.DOCKET_TEST_COMPILED_SRC;
  if (compiled) return [path.join(compiled, file.replace(/^src\//, '').replace(/\.tsx?$/, '.js'))];
  return ['--import', 'tsx', file];
}

/**
 * Docket from its sources (tests and benches), on a free port, ready when /api/health answers. No
 * drain on SIGTERM unless the test asks for one (DOCKET_DRAIN_SECONDS): `stop()` waits for the exit.
 */
export const startDocketFromSource = (env: Record<string, string>, basePath?: string) =>
  startProcess({
    args: sourceArgs('src/server/main.ts'),
    env: { DOCKET_DRAIN_SECONDS: '0', ...env },
    basePath,
  });
