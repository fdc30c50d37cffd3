/**
 * The pool's worker processes: the limits the parent enforces (resident memory, heap, stack,
 * time), each ending in a 422 that names the file, the limit and its setting, while the parent
 * stays small and carries on; cancellation; exits; orphans; and a pool that mixes threads and
 * processes under one size.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { processAlive } from '../util/process-alive.js';
import { WorkerPool, type WorkerPoolOptions } from './pool.js';
import { workerTask } from './task.js';

const processEntry = new URL('../../test/support/pool-child.ts', import.meta.url);
const pools: WorkerPool[] = [];

function pool(options: WorkerPoolOptions = {}): WorkerPool {
  const p = new WorkerPool({ processEntry, isolation: 'process', size: 1, ...options });
  pools.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function failure(promise: Promise<unknown>): Promise<RuntimeError> {
  try {
    await promise;
  } catch (error) {
    if (RuntimeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the task to fail');
}

/** Waits until `pid` is gone (a killed process is reaped a moment after its task fails). */
async function gone(pid: number): Promise<boolean> {
  const deadline = Date.now() + 5000;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return !processAlive(pid);
}

const ownRssMb = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

describe('WorkerPool worker processes', () => {
  it('runs tasks in processes of their own and returns their values', async () => {
    const p = pool({ size: 2 });
    const value = { a: [1, 'two'], b: new Uint8Array([3]), c: new Map([['k', 1]]) };
    expect(await p.run('echo', value)).toEqual(value);
    const pids = await Promise.all([p.run<number>('pid', null), p.run<number>('pid', null)]);
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(process.pid);
    expect(p.processIds().toSorted()).toEqual(pids.toSorted());
    // Reused: the next task goes to a process already running.
    expect(pids).toContain(await p.run<number>('pid', null));
    const args = await p.run<string[]>('execArgv', null);
    expect(args).toEqual(expect.arrayContaining(['--max-old-space-size=512', '--stack-size=3840']));
  });

  it('runs its processes at a lower priority than the runtime, so the event loop wins a busy CPU', async () => {
    const pid = await pool().run<number>('pid', null);
    const expected = Math.min(19, getPriority(process.pid) + 10);
    expect(getPriority(pid)).toBe(expected);
  });

  it('kills a process whose native memory grows past the limit, while the parent stays small', async () => {
    const p = pool({ rssMb: 256 });
    const before = await p.run<number>('pid', null);
    const parentBefore = ownRssMb();
    let parentPeak = parentBefore;
    const sampler = setInterval(() => (parentPeak = Math.max(parentPeak, ownRssMb())), 20);
    try {
      // 2 GB of Buffers, 16 MB at a time: outside any V8 heap limit.
      const killed = await failure(p.run('allocate', 2048, { label: 'converter reader: "book.epub"' }));
      expect(killed.code).toBe('VALIDATION_ERROR');
      expect(killed.message).toBe('converter reader: "book.epub" needed more than 256 MB of memory and was stopped (KNOWLEDGE_WORKER_RSS_MB)');
      // A task that catches failed allocations and keeps trying is killed all the same.
      const stubborn = await failure(p.run('allocateStubbornly', 2048, { label: 'converter reader: "sheet.xlsx"' }));
      expect(stubborn.message).toBe('converter reader: "sheet.xlsx" needed more than 256 MB of memory and was stopped (KNOWLEDGE_WORKER_RSS_MB)');
    } finally {
      clearInterval(sampler);
    }
    expect(parentPeak - parentBefore).toBeLessThan(100);
    expect(await gone(before)).toBe(true);
    // A fresh process takes the next task.
    expect(await p.run<number>('pid', null)).not.toBe(before);
  });

  it('stops a process whose JavaScript heap fills, naming the heap setting when it is the smaller limit', async () => {
    const p = pool({ memoryMb: 96, rssMb: 512 });
    const error = await failure(p.run('exhaust', null, { label: 'pptx reader: "deck.pptx"' }));
    expect(error.message).toBe('pptx reader: "deck.pptx" needed more than 96 MB of memory and was stopped (KNOWLEDGE_WORKER_MEMORY_MB)');
    expect(await p.run('echo', 'alive')).toBe('alive');
  });

  it('a stack overflow (JSON nested 100,000 deep) is a 422 naming the stack setting, and the process carries on', async () => {
    const p = pool();
    const pid = await p.run<number>('pid', null);
    const deep = await failure(p.run('nested', 100_000, { label: 'json reader: "deep.json"' }));
    expect(deep.code).toBe('VALIDATION_ERROR');
    expect(deep.message).toBe('json reader: "deep.json" is nested too deeply: reading it needed more than the 4 MB of stack a conversion may use (KNOWLEDGE_WORKER_STACK_MB)');
    expect(await p.run<number>('pid', null)).toBe(pid);
    // A larger stack reads deeper.
    expect(await pool({ stackMb: 16 }).run('recurse', 60_000)).toBe(60_000);
    expect((await failure(p.run('recurse', 60_000))).message).toMatch(/is nested too deeply/);
  });

  it('stops a task past its time limit (the process is killed), and on cancellation', async () => {
    const p = pool({ taskTimeoutMs: 300 });
    const pid = await p.run<number>('pid', null);
    const started = Date.now();
    const late = await failure(p.run('loop', null, { label: 'converter reader: "huge.tex"' }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(late.message).toBe('converter reader: "huge.tex" did not finish within 0.3 s and was stopped (the conversion time limit, KNOWLEDGE_WORKER_TIMEOUT_SECONDS)');
    expect(await gone(pid)).toBe(true);

    const next = await p.run<number>('pid', null);
    const controller = new AbortController();
    const running = p.run('loop', null, { signal: controller.signal, timeoutMs: 60_000 });
    const waiting = new AbortController();
    const queued = p.run('echo', 1, { signal: waiting.signal });
    waiting.abort(new Error('no longer wanted'));
    await expect(queued).rejects.toThrow('no longer wanted');
    setTimeout(() => controller.abort(new RuntimeError('SERVICE_UNAVAILABLE', 'shutting down')), 50);
    await expect(running).rejects.toThrow('shutting down');
    expect(await gone(next)).toBe(true);
    expect(await p.run<number>('pid', null)).not.toBe(next);
  });

  it('keeps errors typed, and turns an exit or a crash into a 422', async () => {
    const p = pool();
    const typed = await failure(p.run('typed', null));
    expect([typed.code, typed.message]).toEqual(['VALIDATION_ERROR', 'the file is broken']);
    const plain = await p.run('plain', null).catch((e: unknown) => e as Error);
    expect([RuntimeError.isInstance(plain), (plain as Error).name, (plain as Error).message]).toEqual([false, 'TypeError', 'something odd']);
    expect((await failure(p.run('exit', null, { label: 'x: "a"' }))).message).toBe('x: "a" failed: the conversion worker exited (code 3)');
    expect((await failure(p.run('abort', null, { label: 'x: "b"' }))).message).toBe('x: "b" failed: the conversion worker stopped (killed by SIGABRT)');
    // Termination signals are the pool's to send: a terminal's Ctrl-C does not fail the task.
    expect(await p.run('ignoresTerm', null)).toBe('still here');
  });

  it('one size for threads and processes: an idle worker of the other kind makes room', async () => {
    // The real entries: a module of this package, once in a thread, once in a process.
    const threaded = workerTask(import.meta.url, './protocol.js', 'isStackOverflow');
    const isolated = workerTask(import.meta.url, './protocol.js', 'isStackOverflow', 'process');
    const p = new WorkerPool({ size: 1 });
    pools.push(p);
    const overflow = { name: 'RangeError', message: 'Maximum call stack size exceeded' };
    expect(await p.run(threaded, overflow)).toBe(true);
    expect(p.processIds()).toEqual([]);
    expect(await p.run(isolated, overflow)).toBe(true);
    expect(p.processIds()).toHaveLength(1);
    expect(p.stats().workers).toBe(1);
    expect(await p.run(threaded, { name: 'Error', message: 'x' })).toBe(false);
    expect(p.processIds()).toEqual([]);
    expect(p.started).toBe(3);
  });

  it('a worker process does not outlive its parent, even in a task that never yields', async () => {
    const script = `
      const { WorkerPool } = await import(${JSON.stringify(new URL('./pool.ts', import.meta.url).href)});
      const pool = new WorkerPool({ size: 1, isolation: 'process', processEntry: new URL(${JSON.stringify(processEntry.href)}) });
      console.log(await pool.run('pid', null));
      void pool.run('loop', null);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processAlive(pid)).toBe(true);
    parent.kill('SIGKILL');
    expect(await gone(pid)).toBe(true);
  });

  it('an idle worker process does not hold its parent open, and leaves with it', async () => {
    const script = `
      const { WorkerPool } = await import(${JSON.stringify(new URL('./pool.ts', import.meta.url).href)});
      const pool = new WorkerPool({ size: 1, isolation: 'process', processEntry: new URL(${JSON.stringify(processEntry.href)}) });
      console.log(await pool.run('pid', null));
    `;
    const started = Date.now();
    const pid = Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 }).trim());
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await gone(pid)).toBe(true);
  });
});
