/**
 * The quickstart as a subprocess, started the way `npm start` starts it (src/main.ts through
 * tsx, so no build is needed), in a scratch working directory with only the given environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../../..');
const main = resolve(import.meta.dirname, '../src/main.ts');
// Absolute, because the child runs in a scratch directory with no node_modules of its own.
const tsx = pathToFileURL(resolve(root, 'node_modules/tsx/dist/loader.mjs')).href;

export interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

export function start(env: Record<string, string>, cwd: string): Proc {
  const child = spawn(process.execPath, ['--conditions=source', '--import', tsx, main], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc: Proc = { child, stdout: '', stderr: '', exited: new Promise((r) => child.on('exit', (code) => r(code))) };
  child.stdout!.on('data', (d: Buffer) => (proc.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (proc.stderr += d.toString()));
  return proc;
}

export async function waitFor(check: () => boolean, proc: Proc, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (proc.child.exitCode !== null) throw new Error(`exited early: ${proc.stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out; stdout=${proc.stdout} stderr=${proc.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function freePort(): Promise<number> {
  return new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => r(port));
    });
  });
}
