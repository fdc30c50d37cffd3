/**
 * @module providers/embedding/batches
 * Embedding at scale: an embedder's inputs go out in batches, up to the limiter's concurrency at
 * once, each through the shared limiter of its endpoint and model (limiter.ts). A batch is
 * retried (net/retry.ts) on 429, 408, 5xx, timeouts and connection failures, after what
 * `Retry-After` says or a capped exponential backoff with jitter, a bounded number of times; a
 * 429 or a `Retry-After` pauses everyone on the limiter, not only the batch that got it (they
 * would all be refused alike). Retries live here rather than in the HTTP transport so a retry
 * waits its turn like any request. The first batch that fails for good stops the others; the
 * caller's AbortSignal ends every wait and request at once. Interactive calls (a search's
 * query) are served before queued bulk batches.
 */
import { ModelError } from '../../model/model.js';
import { estimateTokens as estimateTextTokens } from '../../model/token-estimate.js';
import { withRetries, type RetryVerdict } from '../../net/retry.js';
import { cancelled, type EmbeddingLimiter } from './limiter.js';
import type { EmbeddingLimits } from './limits.js';

/** A rough count of input tokens (about four characters each), used until the provider reports. */
export function estimateTokens(texts: readonly string[]): number {
  let total = 0;
  for (const text of texts) total += Math.max(1, estimateTextTokens(text));
  return total;
}

/** Worth another attempt: the provider was busy, failing or out of reach, not refusing the input. */
function retryable(error: unknown): RetryVerdict {
  if (!ModelError.isInstance(error)) return false;
  const transient =
    error.code === 'MODEL_UNREACHABLE' ||
    error.code === 'MODEL_TIMEOUT' ||
    (error.code === 'MODEL_HTTP_ERROR' && error.status !== undefined && (error.status === 429 || error.status === 408 || error.status >= 500));
  return transient ? { retry: 'after', afterMs: error.retryAfterMs } : false;
}

/** One batch's answer: its vectors, and the input tokens the provider counted when it says. */
export interface BatchResult {
  vectors: number[][];
  tokens?: number | undefined;
}

export interface BatchPlan {
  limiter: EmbeddingLimiter;
  limits: EmbeddingLimits;
  /** Sends one batch once (no retries of its own). */
  send(batch: readonly string[], signal: AbortSignal | undefined): Promise<BatchResult>;
}

/** Sends one batch through the limiter, retrying what is worth retrying. */
export async function sendBatch(plan: BatchPlan, batch: readonly string[], signal: AbortSignal | undefined, interactive = false): Promise<number[][]> {
  const { limiter, limits } = plan;
  const cost = estimateTokens(batch);
  return withRetries(
    async () => {
      const release = await limiter.acquire(cost, signal, interactive);
      let result: BatchResult;
      try {
        result = await plan.send(batch, signal);
      } catch (error) {
        if (signal?.aborted) throw cancelled(limiter.provider, signal.reason);
        throw error;
      } finally {
        release();
      }
      if (result.tokens !== undefined) limiter.settle(cost, result.tokens);
      return result.vectors;
    },
    {
      policy: { maxRetries: limits.maxRetries, baseDelayMs: limits.retryBaseDelayMs, maxBackoffMs: limits.maxRetryDelayMs },
      signal,
      retryable,
      aborted: (reason) => cancelled(limiter.provider, reason),
      onRetry: (error, delay) => {
        // The provider's word (or a 429) concerns everyone on this endpoint, not this batch alone.
        if ((error as ModelError).retryAfterMs !== undefined || (error as ModelError).status === 429) limiter.pause(delay);
      },
    },
  );
}

/**
 * Embeds `texts` in batches of the plan's size, up to the limiter's concurrency at once, and
 * returns the vectors in input order. The first batch that fails for good stops the others.
 */
export async function embedInBatches(plan: BatchPlan, texts: readonly string[], signal: AbortSignal | undefined, interactive = false): Promise<number[][]> {
  if (texts.length === 0) return [];
  const size = plan.limits.batchSize;
  if (texts.length <= size) return sendBatch(plan, texts, signal, interactive);
  const groups: (readonly string[])[] = [];
  for (let i = 0; i < texts.length; i += size) groups.push(texts.slice(i, i + size));
  const results: number[][][] = Array.from({ length: groups.length }, () => []);
  const inner = new AbortController();
  const onAbort = () => inner.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < groups.length && !failure) {
      const i = next++;
      try {
        results[i] = await sendBatch(plan, groups[i]!, inner.signal, interactive);
      } catch (error) {
        failure ??= { error };
        inner.abort(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(plan.limiter.concurrency, groups.length) }, worker));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw cancelled(plan.limiter.provider, signal.reason);
  if (failure) throw failure.error;
  return results.flat();
}
