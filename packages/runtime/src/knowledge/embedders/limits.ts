/**
 * @module knowledge/embedders/limits
 * Embedding at scale. An embedder splits its inputs into batches and sends each through the
 * limiter of its provider endpoint and model. Every embedder in the process that uses the same
 * endpoint and model shares that limiter, so two uploads at once do not double the rate:
 *
 * - at most `maxConcurrency` requests are in flight;
 * - requests and tokens per minute are token buckets that allow a burst of one second's share;
 *   tokens are estimated before a request (characters / 4) and corrected by the usage the
 *   provider reports; limits the provider announces (`x-ratelimit-limit-*`) tighten the
 *   configured ones, and a `x-ratelimit-remaining-*` of 0 pauses until the announced reset;
 * - a 429, or any answer with `Retry-After`, pauses everyone on the limiter, not only the
 *   request that got it (they would all be refused alike);
 * - a batch is retried on 429, 5xx, timeouts and connection failures, after what `Retry-After`
 *   says (seconds or an HTTP date) or a capped exponential backoff with jitter, a bounded number
 *   of times; the caller's AbortSignal ends every wait and request at once.
 *
 * Interactive calls (a search's query) are served before queued bulk batches.
 */
import { ConfigurationError } from '../../errors.js';
import { ModelError } from '../../model/model.js';
import { RateLimiter } from '../../net/rate-limiter.js';
import { parseResetDuration } from '../../net/retry-after.js';
import { withRetries, type RetryVerdict } from '../../net/retry.js';

export interface EmbeddingLimitOptions {
  /** Inputs per request. */
  batchSize?: number | undefined;
  /** Requests in flight at once, shared by everything in the process on the same endpoint and model. */
  maxConcurrency?: number | undefined;
  /** Requests started per minute; 0 or unset: no limit of our own (the provider's, when it announces one). */
  requestsPerMinute?: number | undefined;
  /** Input tokens per minute (estimated, then as reported); 0 or unset: as for requests. */
  tokensPerMinute?: number | undefined;
  /** Retries of a batch after its first attempt. */
  maxRetries?: number | undefined;
  /** First backoff delay when the provider gives no Retry-After; doubled per retry, with jitter. */
  retryBaseDelayMs?: number | undefined;
  /** Upper bound of any wait between attempts, Retry-After included. */
  maxRetryDelayMs?: number | undefined;
  /** Where the EMBEDDING_* settings are read for options not given here; default process.env. */
  env?: Record<string, string | undefined> | undefined;
}

export interface EmbeddingLimits {
  batchSize: number;
  maxConcurrency: number;
  requestsPerMinute: number | undefined;
  tokensPerMinute: number | undefined;
  maxRetries: number;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
}

/** What each provider gets unless told otherwise. */
export const PROVIDER_DEFAULTS: Readonly<Record<string, Pick<EmbeddingLimits, 'batchSize' | 'maxConcurrency'>>> = {
  // agno's batch size; a few requests in flight stay well inside every OpenAI tier.
  openai: { batchSize: 100, maxConcurrency: 4 },
  // A local server works through its queue anyway; two keep it busy without piling up.
  ollama: { batchSize: 100, maxConcurrency: 2 },
};

export const DEFAULT_EMBEDDING_RETRIES = 5;
const DEFAULT_RETRY_BASE_MS = 500;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** The settings, their bounds and the option each one fills. */
const SETTINGS = [
  ['EMBEDDING_BATCH_SIZE', 'batchSize', 1, 2048],
  ['EMBEDDING_MAX_CONCURRENCY', 'maxConcurrency', 1, 64],
  ['EMBEDDING_REQUESTS_PER_MINUTE', 'requestsPerMinute', 0, 10_000_000],
  ['EMBEDDING_TOKENS_PER_MINUTE', 'tokensPerMinute', 0, 1_000_000_000],
  ['EMBEDDING_MAX_RETRIES', 'maxRetries', 0, 20],
] as const;

/** The EMBEDDING_* environment variables that are set; a malformed one fails naming itself. */
export function embeddingLimitsFromEnvironment(env: Record<string, string | undefined> = process.env): EmbeddingLimitOptions {
  const out: EmbeddingLimitOptions = {};
  for (const [name, key, min, max] of SETTINGS) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigurationError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    out[key] = Number(raw);
  }
  return out;
}

/** Options over EMBEDDING_* settings over the provider's defaults. */
export function resolveEmbeddingLimits(provider: string, options: EmbeddingLimitOptions): EmbeddingLimits {
  const env = embeddingLimitsFromEnvironment(options.env ?? process.env);
  const defaults = PROVIDER_DEFAULTS[provider] ?? { batchSize: 100, maxConcurrency: 2 };
  const pick = <K extends keyof EmbeddingLimitOptions>(key: K) => options[key] ?? env[key];
  const check = (name: string, value: number | undefined, min: number, max: number): number | undefined => {
    if (value === undefined) return undefined;
    if (!Number.isInteger(value) || value < min || value > max) throw new ConfigurationError(`${provider} embedder: ${name} must be a whole number from ${min} to ${max}, got ${value}`);
    return value;
  };
  const perMinute = (name: string, value: number | undefined) => check(name, value, 0, 1_000_000_000) || undefined;
  return {
    batchSize: check('batchSize', pick('batchSize'), 1, 2048) ?? defaults.batchSize,
    maxConcurrency: check('maxConcurrency', pick('maxConcurrency'), 1, 64) ?? defaults.maxConcurrency,
    requestsPerMinute: perMinute('requestsPerMinute', pick('requestsPerMinute')),
    tokensPerMinute: perMinute('tokensPerMinute', pick('tokensPerMinute')),
    maxRetries: check('maxRetries', pick('maxRetries'), 0, 20) ?? DEFAULT_EMBEDDING_RETRIES,
    retryBaseDelayMs: check('retryBaseDelayMs', options.retryBaseDelayMs, 0, 600_000) ?? DEFAULT_RETRY_BASE_MS,
    maxRetryDelayMs: check('maxRetryDelayMs', options.maxRetryDelayMs, 0, 3_600_000) ?? DEFAULT_MAX_RETRY_DELAY_MS,
  };
}

/** A rough count of input tokens (about four characters each), used until the provider reports. */
export function estimateTokens(texts: readonly string[]): number {
  let total = 0;
  for (const text of texts) total += Math.max(1, Math.ceil(text.length / 4));
  return total;
}

function cancelled(provider: string, reason?: unknown): ModelError {
  return new ModelError(provider, 'MODEL_CANCELLED', `${provider}: the request was cancelled`, { cause: reason });
}

/** The limits of one provider endpoint and model, shared by every embedder in the process using them. */
export class EmbeddingLimiter extends RateLimiter {
  constructor(
    readonly provider: string,
    limits: Pick<EmbeddingLimits, 'maxConcurrency' | 'requestsPerMinute' | 'tokensPerMinute'>,
  ) {
    super(limits, (reason) => cancelled(provider, reason));
  }

  /** Learns the limits a provider announces (OpenAI's `x-ratelimit-*` headers). */
  observeHeaders(headers: Headers): void {
    const limit = (name: string) => {
      const n = Number(headers.get(name));
      return headers.has(name) && Number.isFinite(n) && n > 0 ? n : undefined;
    };
    this.announce({ requestsPerMinute: limit('x-ratelimit-limit-requests'), tokensPerMinute: limit('x-ratelimit-limit-tokens') });
    for (const kind of ['requests', 'tokens']) {
      if (headers.get(`x-ratelimit-remaining-${kind}`)?.trim() !== '0') continue;
      const reset = parseResetDuration(headers.get(`x-ratelimit-reset-${kind}`));
      if (reset !== undefined) this.pause(Math.min(reset, DEFAULT_MAX_RETRY_DELAY_MS));
    }
  }
}

const limiters = new Map<string, EmbeddingLimiter>();

/** The process's limiter for `provider` at `endpoint` with `model`, created on first use. */
export function sharedLimiter(provider: string, endpoint: string, model: string, limits: EmbeddingLimits): EmbeddingLimiter {
  const key = `${provider}\n${endpoint}\n${model}`;
  const existing = limiters.get(key);
  if (existing) {
    existing.tighten(limits);
    return existing;
  }
  const created = new EmbeddingLimiter(provider, limits);
  limiters.set(key, created);
  return created;
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
