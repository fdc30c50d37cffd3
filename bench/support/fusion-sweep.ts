/**
 * Fusion settings tried over the keyword and vector hits the retrieval bench fetched (100 per
 * query and side, with their scores), scored like the runtime's own hybrid: how the tuning was
 * measured. The runtime's hybrid asks each side for 3x its limit and fuses those; this fuses the
 * 100 fetched, so its figures differ a little from the `runtime hybrid` row.
 */
import type { LabelledQuery } from '../../packages/runtime/src/knowledge/evals/beir.js';
import type { QueryScores } from '../../packages/runtime/src/knowledge/evals/metrics.js';
import { convexFusion, fuseByRank, HYBRID_KEYWORD_WEIGHT } from '../../packages/runtime/src/knowledge/vector-stores/fusion.js';
import type { SearchHit } from '../../packages/runtime/src/knowledge/vector-stores/vector-store.js';

type Scored = Map<string, [string, number][]>;

const RANK_SETTINGS = [
  { label: 'RRF k=60 (before)', k: 60, weights: [1, 1] },
  { label: 'RRF k=10', k: 10, weights: [1, 1] },
  { label: 'RRF k=60 keyword x3', k: 60, weights: [3, 1] },
  { label: 'RRF k=10 keyword x3', k: 10, weights: [3, 1] },
  { label: 'RRF k=5 keyword x2', k: 5, weights: [2, 1] },
];
const WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.9];

const asHits = (list: [string, number][]): SearchHit[] => list.map(([name, score]) => ({ chunk: { id: '1', content_id: name, content: '', meta_data: {} }, score }));

export function fusionSweep(
  queries: LabelledQuery[],
  keyword: Scored,
  vector: Scored,
  evaluate: (ranked: (q: LabelledQuery) => readonly string[]) => QueryScores,
  row: (label: string, s: QueryScores) => string,
): string[] {
  const names = (scored: Scored, q: LabelledQuery) => [...new Set((scored.get(q.id) ?? []).map(([name]) => name))];
  const out = ['fusion settings over the fetched keyword and vector hits (100 each):'];
  for (const { label, k, weights } of RANK_SETTINGS) {
    out.push(row(`  ${label}`, evaluate((q) => fuseByRank([names(keyword, q), names(vector, q)], (id) => id, 100, { k, weights }))));
  }
  for (const w of WEIGHTS) {
    const s = evaluate((q) => convexFusion(asHits(vector.get(q.id) ?? []), asHits(keyword.get(q.id) ?? []), 100, w).map((h) => h.chunk.content_id));
    out.push(row(`  min-max, keyword ${w}${w === HYBRID_KEYWORD_WEIGHT ? ' (now)' : ''}`, s));
  }
  return out;
}
