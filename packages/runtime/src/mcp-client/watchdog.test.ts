import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { supervised } from './watchdog.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const until = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return check();
};
/** The first child of `pid` (Linux /proc), once it has one. */
const childOf = async (pid: number): Promise<number> => {
  for (let i = 0; i < 100; i++) {
    const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    const first = children.trim().split(' ')[0];
    if (first) return Number(first);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process ${pid} started no child`);
};

describe.skipIf(process.platform !== 'linux')('the stdio watchdog', () => {
  it('ends a server that ignores its stdin when its parent is killed with SIGKILL', async () => {
    // The parent: a process that starts `sleep` (deaf to stdin closing) under the watchdog, as the runtime would.
    const { command, args } = supervised('sleep', ['600']);
    const parentCode = `const c = require('node:child_process').spawn(${JSON.stringify(command)}, ${JSON.stringify(args)}, { stdio: ['pipe', 'pipe', 'inherit'] }); console.log(c.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] });
    const watchdog = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    const server = await childOf(watchdog);
    expect(alive(server)).toBe(true);
    parent.kill('SIGKILL');
    expect(await until(() => !alive(server) && !alive(watchdog), 5000)).toBe(true);
  });

  it('ends the server when asked to (SIGTERM), and exits with the server’s code when it stops by itself', async () => {
    const { command, args } = supervised('sleep', ['600']);
    const watchdog = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const server = await childOf(watchdog.pid!);
    const exited = new Promise<number | null>((r) => watchdog.once('exit', (code) => r(code)));
    watchdog.kill('SIGTERM');
    await exited;
    expect(await until(() => !alive(server), 3000)).toBe(true);

    const failing = supervised(process.execPath, ['-e', 'process.exit(3)']);
    const crashed = spawn(failing.command, failing.args, { stdio: ['pipe', 'pipe', 'inherit'] });
    expect(await new Promise((r) => crashed.once('exit', (code) => r(code)))).toBe(3);
  });
});
