import { describe, expect, it } from 'vitest';
import { distinctRanking, meanScores, mrrAt, ndcgAt, recallAt, scoreQuery } from './metrics.js';

// a: grade 1, b: grade 2, c: judged not relevant.
const judged = new Map([
  ['a', 1],
  ['b', 2],
  ['c', 0],
]);

describe('retrieval metrics', () => {
  it('computes nDCG with linear gain and log2 discount against the ideal order', () => {
    // DCG = 2/log2(3) + 1/log2(4); ideal = 2/log2(2) + 1/log2(3).
    const dcg = 2 / Math.log2(3) + 1 / 2;
    const ideal = 2 + 1 / Math.log2(3);
    expect(ndcgAt(['x', 'b', 'a', 'c'], judged, 10)).toBeCloseTo(dcg / ideal, 12);
    expect(ndcgAt(['x', 'b', 'a', 'c'], judged, 10)).toBeCloseTo(0.669670, 5);
    expect(ndcgAt(['b', 'a'], judged, 10)).toBe(1);
    // Cut at k: only b counts, the ideal at k=2 is both.
    expect(ndcgAt(['x', 'b', 'a'], judged, 2)).toBeCloseTo(2 / Math.log2(3) / ideal, 12);
    expect(ndcgAt(['x', 'y'], judged, 10)).toBe(0);
  });

  it('counts a repeated document once, at its best rank', () => {
    expect(distinctRanking(['b', 'b', 'a', 'b'])).toEqual(['b', 'a']);
    expect(ndcgAt(['b', 'b', 'a'], judged, 10)).toBe(1);
    expect(recallAt(['b', 'b'], judged, 2)).toBe(0.5);
  });

  it('computes MRR@k from the first relevant document within k', () => {
    expect(mrrAt(['x', 'c', 'a'], judged, 10)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt(['x', 'c', 'a'], judged, 2)).toBe(0);
    expect(mrrAt(['b'], judged, 1)).toBe(1);
  });

  it('computes Recall@k over the relevant documents only', () => {
    expect(recallAt(['x', 'b', 'a'], judged, 2)).toBe(0.5);
    expect(recallAt(['x', 'b', 'a'], judged, 100)).toBe(1);
    expect(recallAt(['c'], judged, 100)).toBe(0);
    expect(recallAt(['a'], new Map([['a', 0]]), 10)).toBe(0);
  });

  it('scores a query and averages over queries', () => {
    const one = scoreQuery(['x', 'b', 'a'], judged, 10, 1);
    expect(one).toEqual({ ndcg: ndcgAt(['x', 'b', 'a'], judged, 10), mrr: 0.5, recall: 0 });
    expect(meanScores([one, { ndcg: 1, mrr: 1, recall: 1 }])).toEqual({ ndcg: (one.ndcg + 1) / 2, mrr: 0.75, recall: 0.5 });
    expect(meanScores([])).toEqual({ ndcg: 0, mrr: 0, recall: 0 });
  });

  it('refuses a k that is not a positive integer', () => {
    expect(() => ndcgAt([], judged, 0)).toThrow(RangeError);
    expect(() => recallAt([], judged, 1.5)).toThrow(RangeError);
  });
});
