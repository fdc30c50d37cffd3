/**
 * @module knowledge/embedders/ollama
 * Ollama's embeddings API (`POST {host}/api/embed`, which takes a list of inputs).
 */
import { httpSettings, postForJson, type HttpOptions, type HttpSettings } from '../../model/http.js';
import { ollamaBaseUrl, OLLAMA_DEFAULT_HOST } from '../../model/ollama-chat-model.js';
import { batches, checkVectors, type Embedder } from './embedder.js';

export const OLLAMA_DEFAULT_EMBEDDING_MODEL = 'nomic-embed-text';

export interface OllamaEmbedderOptions extends HttpOptions {
  model?: string | undefined;
  /** Default `http://localhost:11434`; accepts OLLAMA_HOST-style values. */
  host?: string | undefined;
  batchSize?: number | undefined;
}

export class OllamaEmbedder implements Embedder {
  readonly provider = 'ollama';
  readonly model: string;
  readonly id: string;
  readonly #url: string;
  readonly #batchSize: number;
  readonly #http: HttpSettings;

  constructor(options: OllamaEmbedderOptions = {}) {
    this.model = options.model ?? OLLAMA_DEFAULT_EMBEDDING_MODEL;
    this.id = `ollama:${this.model}`;
    this.#url = `${ollamaBaseUrl(options.host ?? OLLAMA_DEFAULT_HOST)}/api/embed`;
    this.#batchSize = options.batchSize ?? 100;
    this.#http = httpSettings('ollama', options);
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    for (const batch of batches(texts, this.#batchSize)) {
      const headers = { 'content-type': 'application/json', accept: 'application/json' };
      const json = (await postForJson(this.#http, { url: this.#url, headers, body: { model: this.model, input: batch }, signal })) as { embeddings?: unknown };
      out.push(...checkVectors('ollama', json?.embeddings, batch.length));
    }
    return out;
  }
}
