/**
 * @module knowledge/embedders/ollama
 * Ollama's embeddings API (`POST {host}/api/embed`, which takes a list of inputs), in batches
 * within the limits shared by everything using the same host and model (see limits.ts).
 */
import { httpSettings, postForJson, type HttpOptions, type HttpSettings } from '../../model/http.js';
import { ollamaBaseUrl, OLLAMA_DEFAULT_HOST } from '../../model/ollama-chat-model.js';
import { checkVectors, type EmbedOptions, type Embedder } from './embedder.js';
import { embedInBatches, resolveEmbeddingLimits, sharedLimiter, type BatchPlan, type BatchResult, type EmbeddingLimiter, type EmbeddingLimitOptions, type EmbeddingLimits } from './limits.js';

export const OLLAMA_DEFAULT_EMBEDDING_MODEL = 'nomic-embed-text';

export interface OllamaEmbedderOptions extends Omit<HttpOptions, 'maxRetries' | 'retryBaseDelayMs'>, EmbeddingLimitOptions {
  model?: string | undefined;
  /** Default `http://localhost:11434`; accepts OLLAMA_HOST-style values. */
  host?: string | undefined;
}

export class OllamaEmbedder implements Embedder {
  readonly provider = 'ollama';
  readonly model: string;
  readonly id: string;
  readonly limits: EmbeddingLimits;
  readonly #url: string;
  readonly #http: HttpSettings;
  readonly #plan: BatchPlan;

  constructor(options: OllamaEmbedderOptions = {}) {
    this.model = options.model ?? OLLAMA_DEFAULT_EMBEDDING_MODEL;
    this.id = `ollama:${this.model}`;
    this.#url = `${ollamaBaseUrl(options.host ?? OLLAMA_DEFAULT_HOST)}/api/embed`;
    this.limits = resolveEmbeddingLimits('ollama', options);
    this.#http = httpSettings('ollama', { ...options, maxRetries: 0 });
    const limiter = sharedLimiter('ollama', this.#url, this.model, this.limits);
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

  private async request(batch: readonly string[], signal: AbortSignal | undefined): Promise<BatchResult> {
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const json = (await postForJson(this.#http, { url: this.#url, headers, body: { model: this.model, input: batch }, signal })) as {
      embeddings?: unknown;
      prompt_eval_count?: unknown;
    };
    const tokens = json?.prompt_eval_count;
    return { vectors: checkVectors('ollama', json?.embeddings, batch.length), tokens: typeof tokens === 'number' ? tokens : undefined };
  }
}
