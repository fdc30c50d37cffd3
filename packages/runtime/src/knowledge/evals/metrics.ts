/**
 * @module knowledge/evals/metrics
 * Retrieval metrics over one ranked list and one query's judgments, as trec_eval and BEIR
 * (pytrec_eval) compute them: nDCG@k with linear gain (a grade counts as itself) and log2
 * discount, the ideal ordering taken from every judged document; MRR@k, the reciprocal rank of
 * the first relevant document in the first k; Recall@k, the share of the relevant documents
 * found in the first k. A document is relevant when its grade is above 0. A ranking lists
 * document ids best first; a repeated id counts once, at its first (best) rank, since
 * retrieval by chunks can return several chunks of one document.
 */

/** One query's judgments: document id -> grade (0 = judged not relevant). */
export type Judgments = ReadonlyMap<string, number>;

export interface QueryScores {
  ndcg: number;
  mrr: number;
  recall: number;
}

/** The ranking with repeats dropped, first occurrences kept. */
export function distinctRanking(ranking: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranking) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, not ${k}`);
}

const relevantCount = (judged: Judgments) => [...judged.values()].filter((g) => g > 0).length;

/** nDCG@k: 0 when the query has no relevant document. */
export function ndcgAt(ranking: readonly string[], judged: Judgments, k: number): number {
  checkK(k);
  const top = distinctRanking(ranking).slice(0, k);
  let dcg = 0;
  top.forEach((id, i) => {
    const grade = judged.get(id) ?? 0;
    if (grade > 0) dcg += grade / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, grade, i) => sum + grade / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** MRR@k: 1/rank of the first relevant document within the first k, else 0. */
export function mrrAt(ranking: readonly string[], judged: Judgments, k: number): number {
  checkK(k);
  const top = distinctRanking(ranking).slice(0, k);
  const first = top.findIndex((id) => (judged.get(id) ?? 0) > 0);
  return first < 0 ? 0 : 1 / (first + 1);
}

/** Recall@k: relevant documents within the first k over all relevant ones; 0 when there are none. */
export function recallAt(ranking: readonly string[], judged: Judgments, k: number): number {
  checkK(k);
  const relevant = relevantCount(judged);
  if (relevant === 0) return 0;
  const found = distinctRanking(ranking)
    .slice(0, k)
    .filter((id) => (judged.get(id) ?? 0) > 0).length;
  return found / relevant;
}

/** The three figures for one query: nDCG and MRR at `k`, recall at `recallK`. */
export function scoreQuery(ranking: readonly string[], judged: Judgments, k = 10, recallK = 100): QueryScores {
  return { ndcg: ndcgAt(ranking, judged, k), mrr: mrrAt(ranking, judged, k), recall: recallAt(ranking, judged, recallK) };
}

/** The mean of each figure over queries (BEIR's averages); zeros for none. */
export function meanScores(scores: readonly QueryScores[]): QueryScores {
  if (scores.length === 0) return { ndcg: 0, mrr: 0, recall: 0 };
  const sum = (pick: (s: QueryScores) => number) => scores.reduce((acc, s) => acc + pick(s), 0) / scores.length;
  return { ndcg: sum((s) => s.ndcg), mrr: sum((s) => s.mrr), recall: sum((s) => s.recall) };
}
