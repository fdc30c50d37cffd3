/**
 * The misbehaving tasks both pool test entries run (the thread one, pool-worker.ts, and the
 * process one, pool-child.ts): echo, spin, hang, a loop that never yields, typed and plain errors.
 */
import { RuntimeError } from '../../src/errors.js';

export const commonTasks: Record<string, (payload: never) => unknown> = {
  echo: (payload: unknown) => payload,
  /** Busy for `ms` milliseconds, then answers how long it took. */
  spin: (ms: number) => {
    const start = Date.now();
    while (Date.now() - start < ms) {
      // burn CPU
    }
    return Date.now() - start;
  },
  hang: () => new Promise(() => undefined),
  loop: () => {
    for (;;) {
      // never yields
    }
  },
  typed: () => {
    throw new RuntimeError('VALIDATION_ERROR', 'the file is broken');
  },
  plain: () => {
    throw new TypeError('something odd');
  },
};
