/**
 * No stdio MCP server outlives the runtime that started it: not after a shutdown, and not after
 * `kill -9` of the runtime, which runs no code in it (the watchdog notices its parent is gone and
 * ends the server's process group).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startChildRuntime } from './support/child-runtime.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { alive, descendants } from './support/mcp-servers.js';

describe('stdio MCP servers after the runtime ends', () => {
  let fake: FakeLlm;
  let folder: string;

  beforeAll(async () => {
    fake = await startFakeLlm();
    folder = await mkdtemp(join(tmpdir(), 'mcp-orphans-'));
  });
  afterAll(async () => {
    await fake?.close();
    await rm(folder, { recursive: true, force: true });
  });

  /** A runtime process whose two servers have started; with the pids of everything under it. */
  const runtimeWithServers = async () => {
    const child = await startChildRuntime(
      { DATABASE_URL: `sqlite:///${join(folder, `rt-${Date.now()}.db`)}`, PORT: String(await freePort()), FAKE_LLM_URL: fake.url, MCP_FOLDER: folder },
      new URL('./support/mcp-runtime-process.ts', import.meta.url),
      // tsx compiles the whole runtime in the child: slow on a loaded machine.
      60_000,
    );
    fake.script({ kind: 'text', text: 'ready' });
    const run = await call(child.url, 'POST', '/agents/helper/runs', { body: { message: 'start', stream: false } });
    expect(run.body.status).toBe('COMPLETED');
    const servers = (await call(child.url, 'GET', '/mcp-servers')).body.data as { status: string }[];
    expect(servers.map((s) => s.status)).toEqual(['connected', 'connected']);
    const pids = await descendants(child.process.pid!);
    // Per server: its watchdog and the server itself (node, no shell in between).
    expect(pids.length).toBeGreaterThanOrEqual(4);
    return { child, pids };
  };

  it('leaves no server process behind after kill -9 of the runtime', async () => {
    const { child, pids } = await runtimeWithServers();
    await child.kill();
    const killed = Date.now();
    const left = await eventually(() => {
      const living = pids.filter(alive);
      return living.length === 0 ? living : undefined;
    }, 10_000, `the servers ${pids.join(', ')} to end`);
    expect(left).toEqual([]);
    process.stdout.write(`stdio servers gone ${Date.now() - killed} ms after kill -9 of the runtime\n`);
  }, 120_000);

  it('ends the servers when the runtime shuts down', async () => {
    const { child, pids } = await runtimeWithServers();
    const exited = new Promise((r) => child.process.once('exit', r));
    child.process.kill('SIGTERM');
    await exited;
    expect(pids.filter(alive)).toEqual([]);
  }, 120_000);
});
