/**
 * @module knowledge/rerankers/from-environment
 * The reranker the environment names: RERANK_PROVIDER `cohere` (also Jina and other servers with
 * Cohere's API, through RERANK_BASE_URL) or `tei` (Hugging Face Text Embeddings Inference), with
 * RERANK_BASE_URL, RERANK_API_KEY and RERANK_MODEL. None when RERANK_PROVIDER is unset.
 */
import { ConfigurationError } from '../../errors.js';
import type { ModelEnvironment } from '../../model/from-environment.js';
import { CohereReranker } from './cohere.js';
import type { Reranker } from './reranker.js';
import { TeiReranker } from './tei.js';

export function rerankerFromEnvironment(env: ModelEnvironment = process.env): Reranker | undefined {
  const read = (name: string) => env[name]?.trim() || undefined;
  const provider = read('RERANK_PROVIDER');
  if (!provider) return undefined;
  const baseURL = read('RERANK_BASE_URL');
  const apiKey = read('RERANK_API_KEY');
  if (provider === 'cohere' || provider === 'jina') return new CohereReranker({ baseURL, apiKey, model: read('RERANK_MODEL') });
  if (provider === 'tei') {
    if (!baseURL) throw new ConfigurationError('RERANK_PROVIDER=tei needs RERANK_BASE_URL (the TEI server, e.g. http://reranker:8080)');
    return new TeiReranker({ baseURL, apiKey });
  }
  throw new ConfigurationError(`RERANK_PROVIDER must be cohere, jina or tei, got "${provider}"`);
}
