/**
 * @module providers/cohere/rerank
 * Cohere's rerank API (`POST {base}/rerank` with `model`, `query`, `documents`, `top_n`; answers
 * `results: [{index, relevance_score}]`), which Jina and several gateways speak as well.
 */
import { ModelError } from '../../model/model.js';
import { checkResults, type RerankResult, type Reranker } from '../../model/reranker.js';
import { httpSettings, postForJson, type HttpOptions, type HttpSettings } from '../http.js';

export interface CohereRerankerOptions extends HttpOptions {
  model?: string | undefined;
  apiKey?: string | undefined;
  /** Default `https://api.cohere.com/v2`. */
  baseURL?: string | undefined;
}

export class CohereReranker implements Reranker {
  readonly id: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;
  readonly #url: string;
  readonly #http: HttpSettings;

  constructor(options: CohereRerankerOptions = {}) {
    if (!options.apiKey && !options.baseURL) {
      throw new ModelError('cohere', 'MODEL_NOT_CONFIGURED', 'cohere rerank: give an apiKey, or a baseURL for a keyless compatible server');
    }
    this.#model = options.model ?? 'rerank-v3.5';
    this.id = `cohere:${this.#model}`;
    this.#apiKey = options.apiKey || undefined;
    this.#url = `${(options.baseURL ?? 'https://api.cohere.com/v2').replace(/\/+$/, '')}/rerank`;
    this.#http = httpSettings('cohere', options);
  }

  async rerank(query: string, documents: readonly string[], topN: number, signal?: AbortSignal): Promise<RerankResult[]> {
    if (documents.length === 0) return [];
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const body = { model: this.#model, query, documents, top_n: Math.min(topN, documents.length) };
    const json = (await postForJson(this.#http, { url: this.#url, headers, body, signal })) as { results?: { index?: unknown; relevance_score?: unknown }[] };
    const results = checkResults('cohere', json?.results?.map((r) => ({ index: r?.index, score: r?.relevance_score })), documents.length);
    return results.toSorted((a, b) => b.score - a.score).slice(0, topN);
  }
}
