import { describe, expect, it } from 'vitest';
import { convexFusion, fuseByRank, HYBRID_KEYWORD_WEIGHT, NORMALISE_OVER } from './fusion.js';
import type { SearchHit } from './vector-store.js';

const hit = (id: string, score: number, contentId = 'c'): SearchHit => ({ chunk: { id, content_id: contentId, content: id, meta_data: {} }, score });

describe('convexFusion', () => {
  it('min-max normalises each side over its candidates and weights keyword 0.9, vector 0.1', () => {
    expect(HYBRID_KEYWORD_WEIGHT).toBe(0.9);
    // vector: a 1, b 0.5, c 0; keyword: c 1, d 0.
    const fused = convexFusion([hit('a', 0.9), hit('b', 0.5), hit('c', 0.1)], [hit('c', 8), hit('d', 2)], 10);
    expect(fused.map((h) => h.chunk.id)).toEqual(['c', 'a', 'b', 'd']);
    expect(fused.map((h) => h.score)).toEqual([0.9, expect.closeTo(0.1, 12), expect.closeTo(0.05, 12), 0]);
  });

  it('sets the range of each side from its best NORMALISE_OVER candidates; those below score 0 from it', () => {
    const vector = Array.from({ length: NORMALISE_OVER + 50 }, (_, i) => hit(`v${i}`, 1 - i / 1000));
    const fused = convexFusion(vector, [], 1000);
    expect(fused).toHaveLength(NORMALISE_OVER + 50);
    expect(fused[0]!.score).toBeCloseTo(0.1, 12);
    expect(fused[NORMALISE_OVER - 1]!.score).toBe(0);
    expect(fused.at(-1)!.score).toBe(0);
    expect(fused[NORMALISE_OVER / 2]!.score).toBeGreaterThan(0);
  });

  it('gives a lone or tied side full marks, keeps contents apart and honours the limit', () => {
    expect(convexFusion([], [hit('a', 3)], 10)).toEqual([{ chunk: hit('a', 0).chunk, score: 0.9 }]);
    expect(convexFusion([hit('a', 0.4), hit('b', 0.4)], [], 10).map((h) => h.score)).toEqual([expect.closeTo(0.1, 12), expect.closeTo(0.1, 12)]);
    expect(convexFusion([hit('a', 1, 'x')], [hit('a', 1, 'y')], 10)).toHaveLength(2);
    expect(convexFusion([hit('a', 3), hit('b', 2), hit('c', 1)], [], 2)).toHaveLength(2);
    expect(convexFusion([hit('a', 0.9), hit('b', 0.1)], [hit('b', 5), hit('a', 1)], 10, 0.5).map((h) => h.score)).toEqual([0.5, 0.5]);
  });
});

describe('fuseByRank', () => {
  it('sums weight/(k + rank) over the lists', () => {
    const fused = fuseByRank([['a', 'b'], ['b', 'c']], (id) => id, 10, { k: 10, weights: [2, 1] });
    // a: 2/11; b: 2/12 + 1/11; c: 1/12.
    expect(fused).toEqual(['b', 'a', 'c']);
  });
});
