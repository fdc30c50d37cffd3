import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../errors.js';
import { checkFilters, queryTokens } from './filters.js';
import { reciprocalRankFusion } from './fusion.js';
import type { SearchHit } from './vector-store.js';

const hit = (id: string, score = 0): SearchHit => ({ chunk: { id, content_id: 'c', content: id, meta_data: {} }, score });

describe('reciprocalRankFusion', () => {
  it('sums 1/(k + rank) over the lists, so items ranked well in both win', () => {
    const fused = reciprocalRankFusion([[hit('a'), hit('b'), hit('c')], [hit('b'), hit('c')]], 10, 60);
    expect(fused.map((h) => h.chunk.id)).toEqual(['b', 'c', 'a']);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61);
    expect(fused[2]!.score).toBeCloseTo(1 / 61);
  });

  it('keeps chunks of different contents apart and honours the limit', () => {
    const other: SearchHit = { chunk: { id: 'a', content_id: 'd', content: 'a', meta_data: {} }, score: 0 };
    expect(reciprocalRankFusion([[hit('a')], [other]], 10)).toHaveLength(2);
    expect(reciprocalRankFusion([[hit('a'), hit('b'), hit('c')]], 2)).toHaveLength(2);
  });
});

describe('checkFilters', () => {
  it('accepts primitive values and nothing', () => {
    expect(checkFilters({ a: 'x', b: 1, c: true, d: null })).toEqual({ a: 'x', b: 1, c: true, d: null });
    expect(checkFilters(undefined)).toEqual({});
  });

  it.each([[['x']], [{ 'a b': 1 }], [{ a: { nested: 1 } }], [{ a: Number.NaN }], ['text']])('refuses %j with BAD_REQUEST', (filters) => {
    let error: unknown;
    try {
      checkFilters(filters);
    } catch (e) {
      error = e;
    }
    expect(RuntimeError.isInstance(error) && error.code).toBe('BAD_REQUEST');
  });
});

describe('queryTokens', () => {
  it('keeps letters and digits only, lower-cased and deduplicated', () => {
    expect(queryTokens('"Vector" OR vector* NEAR(pg) -- café 2024')).toEqual(['vector', 'or', 'near', 'pg', 'café', '2024']);
  });
});
