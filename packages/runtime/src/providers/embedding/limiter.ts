/**
 * @module providers/embedding/limiter
 * The limiter of one provider endpoint and model (net/rate-limiter.ts), shared by every
 * embedder in the process that uses them, so concurrent uploads, a reindex and searches queue
 * together instead of multiplying the load; a second embedder with stricter settings tightens
 * it. Limits the provider announces (OpenAI's `x-ratelimit-limit-*`) hold beside the configured
 * ones, and a `x-ratelimit-remaining-*` of 0 pauses everyone until the announced reset.
 */
import { ModelError } from '../../model/model.js';
import { RateLimiter } from '../../net/rate-limiter.js';
import { parseResetDuration } from '../../net/retry-after.js';
import { DEFAULT_MAX_RETRY_DELAY_MS, type EmbeddingLimits } from './limits.js';

/** What an abort rejects with, in a queue or between attempts. */
export function cancelled(provider: string, reason?: unknown): ModelError {
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
