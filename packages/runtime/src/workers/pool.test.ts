import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { WorkerPool, type WorkerPoolOptions } from './pool.js';

const entry = new URL('../../test/support/pool-worker.ts', import.meta.url);
const pools: WorkerPool[] = [];

function pool(options: WorkerPoolOptions = {}): WorkerPool {
  const p = new WorkerPool({ entry, size: 2, ...options });
  pools.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the task to fail');
}

describe('WorkerPool', () => {
  it('runs tasks in worker threads and returns their values', async () => {
    const p = pool();
    expect(await p.run('echo', { a: [1, 'two'], b: new Uint8Array([3]) })).toEqual({ a: [1, 'two'], b: new Uint8Array([3]) });
    const ids = await Promise.all([p.run<number>('threadId', null), p.run<number>('threadId', null)]);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => id > 0)).toBe(true);
  });

  it('runs at most `size` tasks at once, queues the rest in order and refuses past the queue bound', async () => {
    const p = pool({ size: 1, maxQueue: 1 });
    const first = p.run<number>('spin', 150);
    const second = p.run<number>('spin', 10);
    expect(p.stats()).toEqual({ workers: 1, busy: 1, queued: 1 });
    const refused = await failure(p.run('spin', 10, { label: 'converter reader: "c.pdf"' }));
    expect(RuntimeError.isInstance(refused) && refused.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.message).toContain('converter reader: "c.pdf": all 1 conversion workers are busy');
    expect(await first).toBeGreaterThanOrEqual(150);
    expect(await second).toBeGreaterThanOrEqual(10);
    expect(p.started).toBe(1);
  });

  it('stops a task that runs past its timeout with a 422, and the next task gets a fresh worker', async () => {
    const p = pool({ size: 1, taskTimeoutMs: 300 });
    const before = await p.run<number>('threadId', null);
    const started = Date.now();
    const timedOut = await failure(p.run('loop', null, { label: 'converter reader: "huge.tex"' }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(RuntimeError.isInstance(timedOut) && timedOut.code).toBe('VALIDATION_ERROR');
    expect(timedOut.message).toBe('converter reader: "huge.tex" did not finish within 0.3 s and was stopped (the conversion time limit, KNOWLEDGE_WORKER_TIMEOUT_SECONDS)');
    const after = await p.run<number>('threadId', null);
    expect(after).not.toBe(before);
    // A per-task timeout overrides the pool's.
    expect(await p.run<number>('spin', 400, { timeoutMs: 5000 })).toBeGreaterThanOrEqual(400);
  });

  it("does not count a worker's boot against a task's time limit", async () => {
    const p = new WorkerPool({ entry: new URL('../../test/support/slow-boot-worker.ts', import.meta.url), size: 1, taskTimeoutMs: 300 });
    try {
      expect(await p.run('echo', 'fine')).toBe('fine');
      // Booted now: the limit applies in full.
      expect((await failure(p.run('loop', null))).message).toMatch(/did not finish within 0.3 s/);
    } finally {
      await p.close();
    }
  });

  it('cancels: an aborted running task terminates its worker, an aborted waiting task never starts', async () => {
    const p = pool({ size: 1 });
    const before = await p.run<number>('threadId', null);
    const controller = new AbortController();
    const running = p.run('loop', null, { signal: controller.signal });
    const waiting = new AbortController();
    const queued = p.run('typed', null, { signal: waiting.signal });
    waiting.abort(new Error('no longer wanted'));
    expect((await failure(queued)).message).toBe('no longer wanted');
    setTimeout(() => controller.abort(new RuntimeError('SERVICE_UNAVAILABLE', 'shutting down')), 50);
    const cancelled = await failure(running);
    expect(cancelled.message).toBe('shutting down');
    expect(await p.run<number>('threadId', null)).not.toBe(before);
    // An already aborted signal refuses at once.
    const aborted = AbortSignal.abort(new Error('too late'));
    expect((await failure(p.run('echo', 1, { signal: aborted }))).message).toBe('too late');
  });

  it('keeps a RuntimeError typed across the thread boundary; other errors keep their name and message', async () => {
    const p = pool();
    const typed = await failure(p.run('typed', null));
    expect(RuntimeError.isInstance(typed)).toBe(true);
    expect((typed as RuntimeError).code).toBe('VALIDATION_ERROR');
    expect((typed as RuntimeError).status).toBe(422);
    expect(typed.message).toBe('the file is broken');
    const plain = await failure(p.run('plain', null));
    expect(RuntimeError.isInstance(plain)).toBe(false);
    expect(plain.name).toBe('TypeError');
    expect(plain.message).toBe('something odd');
    // The worker is still usable after a task failed.
    expect(await p.run('echo', 'ok')).toBe('ok');
  });

  it('turns a worker that runs out of memory or exits into a 422, and recovers', async () => {
    const p = pool({ size: 1, memoryMb: 64 });
    const oom = await failure(p.run('exhaust', null, { label: 'converter reader: "bomb.xlsx"' }));
    expect(RuntimeError.isInstance(oom) && oom.code).toBe('VALIDATION_ERROR');
    expect(oom.message).toBe('converter reader: "bomb.xlsx" needed more memory than a conversion may use (64 MB) and was stopped');
    const exited = await failure(p.run('exit', null));
    expect(RuntimeError.isInstance(exited) && exited.code).toBe('VALIDATION_ERROR');
    expect(exited.message).toContain('the conversion worker exited (code 3)');
    expect(await p.run('echo', 'alive')).toBe('alive');
  });

  it('stops idle workers, and close() fails what is still waiting', async () => {
    const p = pool({ size: 1, idleMs: 50 });
    await p.run('echo', 1);
    expect(p.stats().workers).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(p.stats().workers).toBe(0);
    const outcomes = [p.run('hang', null), p.run('echo', 2)].map(failure);
    await p.close();
    for (const error of await Promise.all(outcomes)) expect(RuntimeError.isInstance(error) && error.code).toBe('SERVICE_UNAVAILABLE');
    expect((await failure(p.run('echo', 3))).message).toContain('closed');
  });

  it('keeps the event loop responsive while a worker is busy', async () => {
    const p = pool({ size: 1 });
    await p.run('echo', 'warm');
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    expect(await p.run<number>('spin', 1500)).toBeGreaterThanOrEqual(1500);
    histogram.disable();
    // 1.5 s of CPU ran, and the main thread never waited more than a few ms for it.
    expect(histogram.percentile(99) / 1e6).toBeLessThan(50);
  });
});
