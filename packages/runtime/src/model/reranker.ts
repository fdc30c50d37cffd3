/**
 * @module model/reranker
 * A reranker scores search candidates against the query with a cross-encoder, after fusion, so
 * the few results a caller sees are the most relevant of a wider set. One interface, one provider
 * file per wire format (providers/cohere/rerank.ts: Cohere's, which Jina and others copy;
 * providers/tei/rerank.ts: Hugging Face TEI's).
 */

export interface RerankResult {
  /** Position of the document in the list given. */
  index: number;
  /** Higher is more relevant; usually in [0, 1]. */
  score: number;
}

export interface Reranker {
  /** e.g. `cohere:rerank-v3.5`. */
  readonly id: string;
  /** The `topN` most relevant documents, best first. */
  rerank(query: string, documents: readonly string[], topN: number, signal?: AbortSignal): Promise<RerankResult[]>;
}

/** Checks an answer's shape: every index in range and once, every score a finite number. */
export function checkResults(provider: string, results: unknown, count: number): RerankResult[] {
  if (!Array.isArray(results)) throw new TypeError(`${provider} rerank: the answer has no list of results`);
  const seen = new Set<number>();
  return results.map((r: { index?: unknown; score?: unknown }) => {
    const index = Number(r?.index);
    const score = Number(r?.score);
    if (!Number.isInteger(index) || index < 0 || index >= count || seen.has(index) || !Number.isFinite(score)) {
      throw new TypeError(`${provider} rerank: the answer has an invalid result ${JSON.stringify(r).slice(0, 80)}`);
    }
    seen.add(index);
    return { index, score };
  });
}
