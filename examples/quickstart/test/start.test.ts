/**
 * `npm start` as a user meets it: a subprocess that logs its URL, answers, refuses a busy port
 * clearly, and shuts down cleanly on a signal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, start, waitFor } from './process.js';

describe('npm start (examples/quickstart)', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    while (cleanup.length) cleanup.pop()!();
  });

  function workdir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it('logs one line with its URL, serves, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const cwd = workdir();
    const proc = start({ PORT: String(port) }, cwd);
    cleanup.push(() => proc.child.kill('SIGKILL'));
    await waitFor(() => proc.stdout.includes('\n'), proc);
    expect(proc.stdout.trim().split('\n')).toHaveLength(1);
    expect(proc.stdout).toContain(`http://localhost:${port}`);

    const info = (await (await fetch(`http://127.0.0.1:${port}/info`)).json()) as { os_id: string; mcp: { enabled: boolean } };
    expect(info.os_id).toBe('quickstart');
    expect(info.mcp.enabled).toBe(true);

    expect((await fetch(`http://127.0.0.1:${port}/config`)).status).toBe(200);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(proc.stderr).toMatch(/SIGTERM received/);
    // The embedded default database was created under the working directory.
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(cwd, 'data', 'runtime.db'))).toBe(true);
    // And the library knowledge base's store beside it.
    expect(existsSync(join(cwd, 'data', 'knowledge.db'))).toBe(true);
  });

  it('refuses a port in use with a clear message and exit code 1', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    cleanup.push(() => blocker.close());
    const port = (blocker.address() as { port: number }).port;
    const proc = start({ PORT: String(port) }, workdir());
    expect(await proc.exited).toBe(1);
    expect(proc.stderr).toMatch(new RegExp(`Port ${port} on localhost is already in use`));
    expect(proc.stderr).not.toMatch(/\n\s+at /);
    expect(proc.stdout).toBe('');
  });

  it('refuses an invalid PORT without a stack trace', async () => {
    const proc = start({ PORT: 'seventy' }, workdir());
    expect(await proc.exited).toBe(1);
    expect(proc.stderr).toMatch(/PORT must be a whole number/);
    expect(proc.stderr).not.toMatch(/\n\s+at /);
  });
});
