import { describe, expect, it } from 'vitest';
import { backoffDelay, sleep, withRetries, type RetryOptions, type RetryVerdict } from './retry.js';

class Busy extends Error {
  constructor(readonly afterMs?: number) {
    super('busy');
  }
}

const retryBusy = (error: unknown): RetryVerdict => (error instanceof Busy ? { retry: 'after', afterMs: error.afterMs } : false);
const aborted = (reason: unknown) => new Error(`aborted: ${String(reason)}`);

/** Fails with each error in turn, then answers `done`; records when each attempt started. */
function script(...errors: Error[]) {
  const starts: number[] = [];
  const run = async (attempt: number) => {
    starts.push(Date.now());
    const error = errors[attempt];
    if (error) throw error;
    return 'done';
  };
  return { run, starts };
}

/** Refused once for a stale token, then answers with the attempt's number. */
async function staleOnce(attempt: number): Promise<number> {
  if (attempt === 0) throw new Error('stale token');
  return attempt;
}

function options(extra: Partial<RetryOptions> = {}): RetryOptions {
  return { policy: { maxRetries: 3, baseDelayMs: 5, maxBackoffMs: 40 }, retryable: retryBusy, aborted, ...extra };
}

describe('backoffDelay', () => {
  it('doubles from the base up to the cap, half fixed and half random with jitter', () => {
    const policy = { baseDelayMs: 100, maxBackoffMs: 1000 };
    for (let i = 0; i < 50; i++) {
      const first = backoffDelay(policy, 0);
      expect(first).toBeGreaterThanOrEqual(50);
      expect(first).toBeLessThanOrEqual(100);
      const capped = backoffDelay(policy, 10);
      expect(capped).toBeGreaterThanOrEqual(500);
      expect(capped).toBeLessThanOrEqual(1000);
    }
  });

  it('is the capped exponential itself without jitter', () => {
    const policy = { baseDelayMs: 500, maxBackoffMs: 8000, jitter: false };
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(policy, n))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });
});

describe('withRetries', () => {
  it('retries what the caller calls retryable, then answers', async () => {
    const { run, starts } = script(new Busy(), new Busy());
    expect(await withRetries(run, options())).toBe('done');
    expect(starts).toHaveLength(3);
  });

  it('throws a failure that is not retryable at once', async () => {
    const refused = new Error('refused');
    const { run, starts } = script(refused);
    await expect(withRetries(run, options())).rejects.toBe(refused);
    expect(starts).toHaveLength(1);
  });

  it('stops after maxRetries retries with the last error, or what giveUp makes of it', async () => {
    const last = new Busy();
    const { run, starts } = script(new Busy(), new Busy(), new Busy(), last);
    await expect(withRetries(run, options())).rejects.toBe(last);
    expect(starts).toHaveLength(4);
    const again = script(new Busy(), new Busy(7));
    const gaveUp = withRetries(again.run, options({ policy: { maxRetries: 1, baseDelayMs: 5, maxBackoffMs: 40 }, giveUp: (_e, delay) => new Error(`gave up, next wait ${delay}`) }));
    await expect(gaveUp).rejects.toThrow('gave up, next wait 7');
  });

  it('waits what the server asked, capped at maxWaitMs, or gives up on a longer wait', async () => {
    const { run, starts } = script(new Busy(60));
    await withRetries(run, options());
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(35);
    expect(starts[1]! - starts[0]!).toBeLessThan(55);

    const asked = script(new Busy(120));
    const error = await withRetries(asked.run, options({ policy: { maxRetries: 3, baseDelayMs: 5, maxBackoffMs: 40, maxWaitMs: 100, longWait: 'give-up' } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Busy);
    expect(asked.starts).toHaveLength(1);
  });

  it('retries `now` without waiting and without counting it as a retry', async () => {
    let refreshed = false;
    const retryable = (error: unknown): RetryVerdict => {
      if (error instanceof Error && error.message === 'stale token' && !refreshed) {
        refreshed = true;
        return { retry: 'now' };
      }
      return false;
    };
    const started = Date.now();
    expect(await withRetries(staleOnce, options({ policy: { maxRetries: 0, baseDelayMs: 1000, maxBackoffMs: 1000 }, retryable }))).toBe(1);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('tells onRetry about each wait', async () => {
    const waits: [number, number][] = [];
    const { run } = script(new Busy(3), new Busy(4));
    await withRetries(run, options({ onRetry: (_e, delay, attempt) => waits.push([attempt, delay]) }));
    expect(waits).toEqual([
      [0, 3],
      [1, 4],
    ]);
  });

  it('ends a wait as soon as the signal aborts, with the caller’s error', async () => {
    const controller = new AbortController();
    const { run, starts } = script(new Busy(30_000));
    setTimeout(() => controller.abort('stop'), 20);
    const started = Date.now();
    await expect(withRetries(run, options({ policy: { maxRetries: 3, baseDelayMs: 5, maxBackoffMs: 60_000 }, signal: controller.signal }))).rejects.toThrow('aborted: stop');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(starts).toHaveLength(1);
  });
});

describe('sleep', () => {
  it('waits, or rejects at once for an aborted signal', async () => {
    const started = Date.now();
    await sleep(20, undefined, aborted);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    await expect(sleep(10_000, AbortSignal.abort('gone'), aborted)).rejects.toThrow('aborted: gone');
  });
});
