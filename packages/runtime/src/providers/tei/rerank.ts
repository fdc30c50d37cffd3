/**
 * @module providers/tei/rerank
 * Hugging Face Text Embeddings Inference serving a reranker (`POST {base}/rerank` with `query`
 * and `texts`; answers `[{index, score}]`), the usual way to run one on your own machines.
 */
import { checkResults, type RerankResult, type Reranker } from '../../model/reranker.js';
import { httpSettings, postForJson, type HttpOptions, type HttpSettings } from '../http.js';

export interface TeiRerankerOptions extends HttpOptions {
  /** The TEI server, e.g. `http://reranker:8080`. */
  baseURL: string;
  /** Sent as a bearer when the server is behind an authenticating proxy. */
  apiKey?: string | undefined;
}

export class TeiReranker implements Reranker {
  readonly id: string;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #http: HttpSettings;

  constructor(options: TeiRerankerOptions) {
    const base = options.baseURL.replace(/\/+$/, '');
    this.id = `tei:${new URL(base).host}`;
    this.#url = `${base}/rerank`;
    this.#apiKey = options.apiKey || undefined;
    this.#http = httpSettings('tei', options);
  }

  async rerank(query: string, documents: readonly string[], topN: number, signal?: AbortSignal): Promise<RerankResult[]> {
    if (documents.length === 0) return [];
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const json = await postForJson(this.#http, { url: this.#url, headers, body: { query, texts: documents, truncate: true }, signal });
    return checkResults('tei', json, documents.length)
      .toSorted((a, b) => b.score - a.score)
      .slice(0, topN);
  }
}
