/**
 * @module knowledge/vector-stores/fusion
 * How hybrid search merges its two sides. `convexFusion` is what it uses: each side's scores
 * min-max normalised over that side's candidates (so cosine similarity and BM25/ts_rank, on
 * unrelated scales, both span [0, 1]), then weighted, keyword HYBRID_KEYWORD_WEIGHT and vector
 * the rest; a candidate one side did not return gets 0 from it. Measured on SciFact
 * (bench/retrieval.ts, docs/ARCHITECTURE.md) it beats Reciprocal Rank Fusion, which is kept for
 * comparison: RRF counts a rank the same whatever the gap in scores behind it, so a weak
 * embedder's confident-looking order outvoted exact keyword matches.
 */
import type { SearchHit } from './vector-store.js';

/** The keyword side's share of a hybrid score; the vector side has the rest. */
export const HYBRID_KEYWORD_WEIGHT = 0.9;

const hitKey = (hit: SearchHit) => `${hit.chunk.content_id}\u0000${hit.chunk.id}`;

/**
 * How many of a side's best candidates set its range: a wider field (a search asking for more
 * hits) would otherwise lower the minimum and squeeze every score toward 1. Measured on SciFact,
 * min-max over 30 candidates and over 100 score alike, over 300 worse (sample, keyword 0.8: 0.850
 * -> 0.839 nDCG@10).
 */
export const NORMALISE_OVER = 100;

/**
 * Each hit's score mapped onto [0, 1] over the list's best NORMALISE_OVER (lists are best
 * first): the best 1, the worst of those 0 and any below it too (all 1 when they are equal).
 */
function normalised(list: readonly SearchHit[]): Map<string, { hit: SearchHit; score: number }> {
  let lo = Infinity;
  let hi = -Infinity;
  for (const h of list.slice(0, NORMALISE_OVER)) {
    lo = Math.min(lo, h.score);
    hi = Math.max(hi, h.score);
  }
  const out = new Map<string, { hit: SearchHit; score: number }>();
  for (const h of list) if (!out.has(hitKey(h))) out.set(hitKey(h), { hit: h, score: hi > lo ? Math.max(0, (h.score - lo) / (hi - lo)) : 1 });
  return out;
}

/** Hybrid's fusion: normalised scores, weighted; scores in [0, 1], best first. */
export function convexFusion(vector: readonly SearchHit[], keyword: readonly SearchHit[], limit: number, keywordWeight = HYBRID_KEYWORD_WEIGHT): SearchHit[] {
  const v = normalised(vector);
  const k = normalised(keyword);
  const fused: SearchHit[] = [];
  for (const key of new Set([...k.keys(), ...v.keys()])) {
    const chunk = (k.get(key) ?? v.get(key))!.hit.chunk;
    fused.push({ chunk, score: keywordWeight * (k.get(key)?.score ?? 0) + (1 - keywordWeight) * (v.get(key)?.score ?? 0) });
  }
  return fused.sort((a, b) => b.score - a.score).slice(0, limit);
}

export const RRF_K = 60;

export interface FusionSettings {
  /** RRF's constant: larger flattens the difference between ranks. */
  k: number;
  /** One weight per list, in the lists' order (missing ones count 1). */
  weights?: readonly number[];
}

/** The items of every list fused by weighted reciprocal rank, best first; `key` says which are the same. */
export function fuseByRank<T>(lists: readonly (readonly T[])[], key: (item: T) => string, limit: number, settings: FusionSettings): T[] {
  const fused = new Map<string, { item: T; score: number }>();
  lists.forEach((list, l) => {
    const weight = settings.weights?.[l] ?? 1;
    list.forEach((item, rank) => {
      const id = key(item);
      const add = weight / (settings.k + rank + 1);
      const seen = fused.get(id);
      if (seen) seen.score += add;
      else fused.set(id, { item, score: add });
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit).map((f) => f.item);
}

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
