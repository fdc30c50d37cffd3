/**
 * @module knowledge/evals/run-eval
 * One evaluation: every labelled query searched by every search type asked for, the hits'
 * contents mapped back to the judged documents (a content judged under a name counts as that
 * document; others stay themselves), and nDCG@k, MRR@k and Recall@recall_k computed per query
 * and averaged per search type. A search asks for max(k, recall_k) hits; hits are chunks, so a
 * content with several chunks among them counts once, at its best rank.
 */
import type { SearchType } from '../vector-stores/vector-store.js';
import type { EvalQueryDetail, EvalRecord, ResolvedQuery } from './eval-store.js';
import { meanScores, scoreQuery, type QueryScores } from './metrics.js';

export interface EvalPlan {
  queries: readonly ResolvedQuery[];
  searchTypes: readonly SearchType[];
  k: number;
  recallK: number;
  /** The content id of each hit, best first. */
  search(query: string, searchType: SearchType, limit: number): Promise<string[]>;
  /** Told every few queries how many are done. */
  progress?(done: number): Promise<void>;
  signal?: AbortSignal;
}

/** How often progress is told, in queries. */
const PROGRESS_EVERY = 25;

export async function runEval(plan: EvalPlan): Promise<{ results: NonNullable<EvalRecord['results']>; details: EvalQueryDetail[] }> {
  const limit = Math.max(plan.k, plan.recallK);
  const perType = new Map<SearchType, QueryScores[]>(plan.searchTypes.map((t) => [t, []]));
  const details: EvalQueryDetail[] = [];
  for (const [i, query] of plan.queries.entries()) {
    plan.signal?.throwIfAborted();
    const documentOf = new Map<string, string>();
    for (const j of query.judgments) for (const id of j.content_ids) documentOf.set(id, j.document);
    const judged = new Map(query.judgments.map((j) => [j.document, j.grade]));
    const scores: EvalQueryDetail['scores'] = {};
    for (const type of plan.searchTypes) {
      const ranking = (await plan.search(query.text, type, limit)).map((id) => documentOf.get(id) ?? `content:${id}`);
      const s = scoreQuery(ranking, judged, plan.k, plan.recallK);
      scores[type] = s;
      perType.get(type)!.push(s);
    }
    details.push({ id: query.id, query: query.text, relevant: query.judgments.filter((j) => j.grade > 0).length, scores });
    if ((i + 1) % PROGRESS_EVERY === 0) await plan.progress?.(i + 1);
  }
  const results: NonNullable<EvalRecord['results']> = {};
  for (const [type, list] of perType) results[type] = meanScores(list);
  return { results, details };
}
