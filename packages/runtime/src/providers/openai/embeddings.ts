/**
 * @module providers/openai/embeddings
 * OpenAI-compatible embeddings (`POST {baseURL}/embeddings`): OpenAI, and servers that copy its
 * API (vLLM, LiteLLM, Together...). Inputs go in batches (100 by default, as agno does), a few
 * requests at once, within the limits shared by everything using the same endpoint and model
 * (see providers/embedding/); OpenAI's `x-ratelimit-*` headers and `usage.prompt_tokens` feed those limits.
 */
import { checkVectors, type Embedder } from '../../model/embedder.js';
import { ModelError } from '../../model/model.js';
import { BatchedEmbedder } from '../embedding/batched-embedder.js';
import type { BatchResult } from '../embedding/batches.js';
import type { EmbeddingLimitOptions } from '../embedding/limits.js';
import { httpSettings, postForJson, type HttpOptions, type HttpSettings } from '../http.js';

export const OPENAI_DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';
const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIEmbedderOptions extends Omit<HttpOptions, 'maxRetries' | 'retryBaseDelayMs'>, EmbeddingLimitOptions {
  model?: string | undefined;
  /** Sent as `Authorization: Bearer`; omit for keyless servers. */
  apiKey?: string | undefined;
  /** Default `https://api.openai.com/v1`. */
  baseURL?: string | undefined;
  /** Asks models that support it (text-embedding-3-*) for shorter vectors. */
  dimensions?: number | undefined;
}

interface EmbeddingsResponse {
  data?: { embedding?: unknown; index?: unknown }[];
  usage?: { prompt_tokens?: unknown };
}

export class OpenAIEmbedder extends BatchedEmbedder implements Embedder {
  readonly provider = 'openai';
  readonly model: string;
  readonly id: string;
  readonly #apiKey: string | undefined;
  readonly #url: string;
  readonly #dimensions: number | undefined;
  readonly #http: HttpSettings;

  constructor(options: OpenAIEmbedderOptions = {}) {
    if (!options.apiKey && !options.baseURL) {
      throw new ModelError('openai', 'MODEL_NOT_CONFIGURED', 'openai embeddings: give an apiKey, or a baseURL for a keyless OpenAI-compatible server');
    }
    const model = options.model ?? OPENAI_DEFAULT_EMBEDDING_MODEL;
    const url = `${(options.baseURL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '')}/embeddings`;
    super('openai', url, model, options);
    this.model = model;
    this.id = `openai:${model}${options.dimensions ? `:${options.dimensions}` : ''}`;
    this.#apiKey = options.apiKey || undefined;
    this.#url = url;
    this.#dimensions = options.dimensions;
    // Retries happen in embedding/batches.ts, where they wait their turn like any other request.
    this.#http = httpSettings('openai', { ...options, maxRetries: 0 });
  }

  protected async request(batch: readonly string[], signal: AbortSignal | undefined): Promise<BatchResult> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const body = { model: this.model, input: batch, encoding_format: 'float', ...(this.#dimensions ? { dimensions: this.#dimensions } : {}) };
    const limiter = this.limiter;
    const json = (await postForJson(this.#http, { url: this.#url, headers, body, signal, onResponse: (h) => limiter.observeHeaders(h) })) as EmbeddingsResponse;
    // The API does not promise input order; `index` does.
    const data = Array.isArray(json?.data) ? [...json.data].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0)) : undefined;
    const tokens = json?.usage?.prompt_tokens;
    return { vectors: checkVectors('openai', data?.map((d) => d.embedding), batch.length), tokens: typeof tokens === 'number' ? tokens : undefined };
  }
}
