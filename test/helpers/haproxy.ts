/**
 * HAProxy from Debian (`apt-get install haproxy`; .ci/run installs it) in front of Docket instances,
 * running the shipped configuration deploy/haproxy.cfg on ephemeral ports, with its runtime API on a
 * socket in a fresh temporary directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, root } from './server.js';

export const HAPROXY = '/usr/sbin/haproxy';
export const haproxyInstalled = () => fs.existsSync(HAPROXY);

export interface Balancer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Sends one runtime-API command (e.g. `set server docket_instances/a state maint`) and answers its output. */
  command(cmd: string): Promise<string>;
  /** The state of each server as the balancer sees it: name -> UP, DOWN, MAINT, … */
  states(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/** Starts HAProxy with deploy/haproxy.cfg before instances `a` and `b` (host:port each). */
export async function startBalancer(a: string, b: string): Promise<Balancer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docket-haproxy-'));
  const socket = path.join(dir, 'admin.sock');
  const port = await freePort();
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', path.join(root, 'deploy', 'haproxy.cfg')], {
    env: {
      PATH: process.env.PATH ?? '',
      DOCKET_LB_BIND: `127.0.0.1:${port}`,
      DOCKET_INSTANCE_A: a,
      DOCKET_INSTANCE_B: b,
      HAPROXY_ADMIN_SOCKET: socket,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));

  const command = (cmd: string) =>
    new Promise<string>((resolve, reject) => {
      const c = net.createConnection(socket);
      let answer = '';
      c.on('connect', () => c.write(`${cmd}\n`));
      c.on('data', (d) => {
        answer += d.toString();
      });
      c.on('end', () => resolve(answer));
      c.on('error', reject);
    });
  const states = async () => {
    const text = await command('show stat');
    const out: Record<string, string> = {};
    for (const line of text.split('\n')) {
      const f = line.split(',');
      if (f[0] === 'docket_instances' && f[1] !== 'BACKEND') out[f[1]] = f[17];
    }
    return out;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${out}`);
    const up = await states().catch(() => ({}) as Record<string, string>);
    if (up.a === 'UP' && up.b === 'UP') break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not see both instances up (${JSON.stringify(up)}):\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://127.0.0.1:${port}`, command, states, stop };
}
