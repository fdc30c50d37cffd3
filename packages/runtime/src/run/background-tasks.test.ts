import { describe, expect, it } from 'vitest';
import { BackgroundTasks } from './background-tasks.js';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('BackgroundTasks', () => {
  it('drains only once every task has settled, failures included', async () => {
    const tasks = new BackgroundTasks();
    const a = deferred();
    const b = deferred();
    tasks.track(a.promise);
    tasks.track(b.promise);
    let drained = false;
    const draining = tasks.drain().then(() => (drained = true));
    a.resolve();
    await a.promise;
    await Promise.resolve();
    expect(drained).toBe(false);
    b.reject(new Error('boom'));
    await draining;
    expect(drained).toBe(true);
    expect(tasks.size).toBe(0);
  });

  it('waits for tasks started while draining', async () => {
    const tasks = new BackgroundTasks();
    const first = deferred();
    const second = deferred();
    tasks.track(first.promise);
    let drained = false;
    const draining = tasks.drain().then(() => (drained = true));
    tasks.track(second.promise);
    first.resolve();
    await first.promise;
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    second.resolve();
    await draining;
    expect(drained).toBe(true);
  });

  it('drains at once when nothing is pending', async () => {
    await expect(new BackgroundTasks().drain()).resolves.toBeUndefined();
  });
});
