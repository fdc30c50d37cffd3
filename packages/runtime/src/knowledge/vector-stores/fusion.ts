/**
 * @module knowledge/vector-stores/fusion
 * Reciprocal Rank Fusion: each list contributes 1/(k + rank) per item.
 *
 * It needs no score calibration between cosine similarity and BM25/ts_rank, which are on
 * unrelated scales.
 */
import type { SearchHit } from './vector-store.js';

export const RRF_K = 60;

export function reciprocalRankFusion(lists: readonly (readonly SearchHit[])[], limit: number, k = RRF_K): SearchHit[] {
  const fused = new Map<string, SearchHit>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      const key = `${hit.chunk.content_id}\u0000${hit.chunk.id}`;
      const add = 1 / (k + rank + 1);
      const seen = fused.get(key);
      fused.set(key, { chunk: hit.chunk, score: (seen?.score ?? 0) + add });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}

/** Hybrid asks each side for more candidates than it returns, so fusion has room to reorder. */
export const HYBRID_CANDIDATES = 3;
