import { describe, expect, it } from 'vitest';
import { PriorityScheduler } from './scheduler.js';

/** A task that finishes when told to, recording when it started. */
function gate(log: string[], name: string) {
  let open!: (value: string) => void;
  const done = new Promise<string>((resolve) => (open = resolve));
  return {
    start: () => {
      log.push(name);
      return done;
    },
    finish: () => open(name),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PriorityScheduler', () => {
  it('runs at most `slots` tasks at once, and a waiting interactive task before bulk ones queued earlier', async () => {
    const log: string[] = [];
    const scheduler = new PriorityScheduler(1);
    const [a, b, c, q] = ['bulk a', 'bulk b', 'bulk c', 'query'].map((name) => gate(log, name));
    const results = [scheduler.run(a!.start), scheduler.run(b!.start), scheduler.run(c!.start), scheduler.run(q!.start, { interactive: true })];
    expect(log).toEqual(['bulk a']);
    expect(scheduler.stats()).toEqual({ running: 1, waiting: 3 });
    a!.finish();
    await tick();
    expect(log).toEqual(['bulk a', 'query']);
    q!.finish();
    await tick();
    b!.finish();
    await tick();
    c!.finish();
    expect(await Promise.all(results)).toEqual(['bulk a', 'bulk b', 'bulk c', 'query']);
    expect(log).toEqual(['bulk a', 'query', 'bulk b', 'bulk c']);
  });

  it('drops a waiting task whose caller gives up, and answers a started one at once with the reason', async () => {
    const log: string[] = [];
    const scheduler = new PriorityScheduler(1);
    const running = gate(log, 'running');
    const waiting = gate(log, 'waiting');
    const first = new AbortController();
    const second = new AbortController();
    const started = scheduler.run(running.start, { signal: first.signal });
    const queued = scheduler.run(waiting.start, { signal: second.signal });
    second.abort(new Error('gone'));
    await expect(queued).rejects.toThrow('gone');
    first.abort(new Error('stopped'));
    await expect(started).rejects.toThrow('stopped');
    // The started task still holds its slot until it ends: its worker is busy with it.
    expect(scheduler.stats()).toEqual({ running: 1, waiting: 0 });
    running.finish();
    await tick();
    expect(scheduler.stats()).toEqual({ running: 0, waiting: 0 });
    expect(log).toEqual(['running']);
  });

  it('refuses a task whose signal is already aborted, and passes a task’s failure to its caller', async () => {
    const scheduler = new PriorityScheduler(2);
    await expect(scheduler.run(() => Promise.resolve(1), { signal: AbortSignal.abort(new Error('late')) })).rejects.toThrow('late');
    await expect(
      scheduler.run(() => {
        throw new Error('sync failure');
      }),
    ).rejects.toThrow('sync failure');
    await expect(scheduler.run(() => Promise.reject(new Error('async failure')))).rejects.toThrow('async failure');
    expect(await scheduler.run(() => Promise.resolve('still works'))).toBe('still works');
    expect(() => new PriorityScheduler(0)).toThrow(RangeError);
  });
});
