/**
 * @module providers/embedding/batched-embedder
 * What every HTTP embedder shares: its inputs go out in batches through the limiter of its
 * endpoint and model (batches.ts, limiter.ts). A provider file supplies only the request for one batch.
 */
import type { EmbedOptions } from '../../model/embedder.js';
import { embedInBatches, type BatchPlan, type BatchResult } from './batches.js';
import { sharedLimiter, type EmbeddingLimiter } from './limiter.js';
import { resolveEmbeddingLimits, type EmbeddingLimitOptions, type EmbeddingLimits } from './limits.js';

export abstract class BatchedEmbedder {
  readonly limits: EmbeddingLimits;
  readonly #plan: BatchPlan;

  protected constructor(provider: string, endpoint: string, model: string, options: EmbeddingLimitOptions) {
    this.limits = resolveEmbeddingLimits(provider, options);
    const limiter = sharedLimiter(provider, endpoint, model, this.limits);
    this.#plan = { limiter, limits: this.limits, send: (batch, signal) => this.request(batch, signal) };
  }

  get batchSize(): number {
    return this.limits.batchSize;
  }

  get maxConcurrency(): number {
    return this.#plan.limiter.concurrency;
  }

  /** The limits in force for this endpoint and model, shared with every embedder using them. */
  get limiter(): EmbeddingLimiter {
    return this.#plan.limiter;
  }

  embed(texts: readonly string[], signal?: AbortSignal, options?: EmbedOptions): Promise<number[][]> {
    return embedInBatches(this.#plan, texts, signal, options?.interactive === true);
  }

  /** One batch, as the provider's API takes it. */
  protected abstract request(batch: readonly string[], signal: AbortSignal | undefined): Promise<BatchResult>;
}
