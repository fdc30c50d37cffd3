/**
 * @module net/retry
 * The one retry loop of outbound HTTP. An attempt that fails is retried when its caller says the
 * failure is worth it, after the wait the server asked for (Retry-After) or else a capped
 * exponential backoff, at most `maxRetries` times; the caller's AbortSignal ends any wait at
 * once. Callers keep their own rules (which failures retry, what an abort rejects with, what
 * the last error says) and share the arithmetic and the waiting.
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff delay; doubled per retry. */
  baseDelayMs: number;
  /** The largest backoff delay. */
  maxBackoffMs: number;
  /**
   * "Equal jitter" (default): half of the backoff fixed, half random, so clients refused together
   * do not come back together. `false` waits the backoff itself.
   */
  jitter?: boolean | undefined;
  /** The longest wait taken, a server's included. Default: maxBackoffMs. */
  maxWaitMs?: number | undefined;
  /** A wait longer than maxWaitMs: wait maxWaitMs (`cap`, default) or stop retrying (`give-up`). */
  longWait?: 'cap' | 'give-up' | undefined;
}

/**
 * What a failed attempt means: `false` stops (its error is thrown), `retry` waits `afterMs`
 * when the server said how long, else the backoff, and `now` tries again without waiting or
 * counting against maxRetries (a cached token was refused and has been dropped).
 */
export type RetryVerdict = false | { retry: 'after'; afterMs?: number | undefined } | { retry: 'now' };

export interface RetryOptions {
  policy: RetryPolicy;
  signal?: AbortSignal | undefined;
  /** Whether a failure is worth another attempt; `attempt` counts from 0. */
  retryable(error: unknown, attempt: number): RetryVerdict;
  /** What a wait ended by the signal rejects with: each caller has its own cancellation error. */
  aborted(reason: unknown): unknown;
  /** Before each wait (a log line; pausing everyone else who would be refused alike). */
  onRetry?: ((error: unknown, delayMs: number, attempt: number) => void) | undefined;
  /** The error thrown when retrying stops for a retryable failure, given the wait not taken. */
  giveUp?: ((error: unknown, delayMs: number) => unknown) | undefined;
}

/** The backoff before retry `retry` (0 for the first): base * 2^retry, capped, maybe jittered. */
export function backoffDelay(policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxBackoffMs' | 'jitter'>, retry: number): number {
  const ceiling = Math.min(policy.maxBackoffMs, policy.baseDelayMs * 2 ** retry);
  return policy.jitter === false ? ceiling : ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Runs `attempt` until it succeeds or a failure is not retried; see RetryOptions. */
export async function withRetries<T>(attempt: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { policy } = options;
  const maxWaitMs = policy.maxWaitMs ?? policy.maxBackoffMs;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const verdict = options.retryable(error, n);
      if (verdict === false) throw error;
      if (verdict.retry === 'now') continue;
      let delay = verdict.afterMs ?? backoffDelay(policy, n);
      const tooLong = delay > maxWaitMs;
      if (n >= policy.maxRetries || (tooLong && policy.longWait === 'give-up')) throw options.giveUp ? options.giveUp(error, delay) : error;
      if (tooLong) delay = maxWaitMs;
      options.onRetry?.(error, delay, n);
      await sleep(delay, options.signal, options.aborted);
    }
  }
}

/** Waits `ms`, or rejects with `aborted(reason)` as soon as the signal fires. */
export function sleep(ms: number, signal: AbortSignal | undefined, aborted: (reason: unknown) => unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(aborted(signal.reason));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
