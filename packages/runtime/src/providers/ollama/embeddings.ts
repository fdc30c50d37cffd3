/**
 * @module providers/ollama/embeddings
 * Ollama's embeddings API (`POST {host}/api/embed`, which takes a list of inputs), in batches
 * within the limits shared by everything using the same host and model (see providers/embedding/).
 */
import { checkVectors, type Embedder } from '../../model/embedder.js';
import { BatchedEmbedder } from '../embedding/batched-embedder.js';
import type { BatchResult } from '../embedding/batches.js';
import type { EmbeddingLimitOptions } from '../embedding/limits.js';
import { httpSettings, postForJson, type HttpOptions, type HttpSettings } from '../http.js';
import { ollamaBaseUrl, OLLAMA_DEFAULT_HOST } from './host.js';

export const OLLAMA_DEFAULT_EMBEDDING_MODEL = 'nomic-embed-text';

export interface OllamaEmbedderOptions extends Omit<HttpOptions, 'maxRetries' | 'retryBaseDelayMs'>, EmbeddingLimitOptions {
  model?: string | undefined;
  /** Default `http://localhost:11434`; accepts OLLAMA_HOST-style values. */
  host?: string | undefined;
}

export class OllamaEmbedder extends BatchedEmbedder implements Embedder {
  readonly provider = 'ollama';
  readonly model: string;
  readonly id: string;
  readonly #url: string;
  readonly #http: HttpSettings;

  constructor(options: OllamaEmbedderOptions = {}) {
    const model = options.model ?? OLLAMA_DEFAULT_EMBEDDING_MODEL;
    const url = `${ollamaBaseUrl(options.host ?? OLLAMA_DEFAULT_HOST)}/api/embed`;
    super('ollama', url, model, options);
    this.model = model;
    this.id = `ollama:${model}`;
    this.#url = url;
    this.#http = httpSettings('ollama', { ...options, maxRetries: 0 });
  }

  protected async request(batch: readonly string[], signal: AbortSignal | undefined): Promise<BatchResult> {
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const json = (await postForJson(this.#http, { url: this.#url, headers, body: { model: this.model, input: batch }, signal })) as {
      embeddings?: unknown;
      prompt_eval_count?: unknown;
    };
    const tokens = json?.prompt_eval_count;
    return { vectors: checkVectors('ollama', json?.embeddings, batch.length), tokens: typeof tokens === 'number' ? tokens : undefined };
  }
}
