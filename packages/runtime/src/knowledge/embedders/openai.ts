/**
 * @module knowledge/embedders/openai
 * OpenAI-compatible embeddings (`POST {baseURL}/embeddings`): OpenAI, and servers that copy its
 * API (vLLM, LiteLLM, Together...). Inputs go in batches of 100, as agno does.
 */
import { httpSettings, postForJson, type HttpOptions, type HttpSettings } from '../../model/http.js';
import { ModelError } from '../../model/model.js';
import { batches, checkVectors, type Embedder } from './embedder.js';

export const OPENAI_DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';
const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIEmbedderOptions extends HttpOptions {
  model?: string | undefined;
  /** Sent as `Authorization: Bearer`; omit for keyless servers. */
  apiKey?: string | undefined;
  /** Default `https://api.openai.com/v1`. */
  baseURL?: string | undefined;
  /** Asks models that support it (text-embedding-3-*) for shorter vectors. */
  dimensions?: number | undefined;
  batchSize?: number | undefined;
}

interface EmbeddingsResponse {
  data?: { embedding?: unknown; index?: unknown }[];
}

export class OpenAIEmbedder implements Embedder {
  readonly provider = 'openai';
  readonly model: string;
  readonly id: string;
  readonly #apiKey: string | undefined;
  readonly #url: string;
  readonly #dimensions: number | undefined;
  readonly #batchSize: number;
  readonly #http: HttpSettings;

  constructor(options: OpenAIEmbedderOptions = {}) {
    if (!options.apiKey && !options.baseURL) {
      throw new ModelError('openai', 'MODEL_NOT_CONFIGURED', 'openai embeddings: give an apiKey, or a baseURL for a keyless OpenAI-compatible server');
    }
    this.model = options.model ?? OPENAI_DEFAULT_EMBEDDING_MODEL;
    this.id = `openai:${this.model}${options.dimensions ? `:${options.dimensions}` : ''}`;
    this.#apiKey = options.apiKey || undefined;
    this.#url = `${(options.baseURL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '')}/embeddings`;
    this.#dimensions = options.dimensions;
    this.#batchSize = options.batchSize ?? 100;
    this.#http = httpSettings('openai', options);
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const out: number[][] = [];
    for (const batch of batches(texts, this.#batchSize)) {
      const body = { model: this.model, input: batch, encoding_format: 'float', ...(this.#dimensions ? { dimensions: this.#dimensions } : {}) };
      const json = (await postForJson(this.#http, { url: this.#url, headers, body, signal })) as EmbeddingsResponse;
      // The API does not promise input order; `index` does.
      const data = Array.isArray(json?.data) ? [...json.data].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0)) : undefined;
      out.push(...checkVectors('openai', data?.map((d) => d.embedding), batch.length));
    }
    return out;
  }
}
