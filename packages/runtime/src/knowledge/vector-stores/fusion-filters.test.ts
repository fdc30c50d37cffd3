import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../errors.js';
import { filterKeysOf, parseFilters } from './filter-language.js';
import { queryTokens } from './filters.js';
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

describe('parseFilters', () => {
  it('reads the plain form as an AND of equalities, and nothing as no filter', () => {
    expect(parseFilters({ a: 'x', b: 1, c: true, d: null })).toEqual({
      op: 'AND',
      conditions: [
        { op: 'EQ', key: 'a', value: 'x' },
        { op: 'EQ', key: 'b', value: 1 },
        { op: 'EQ', key: 'c', value: true },
        { op: 'EQ', key: 'd', value: null },
      ],
    });
    expect(parseFilters(undefined)).toBeUndefined();
    expect(parseFilters({})).toBeUndefined();
    expect(parseFilters([])).toBeUndefined();
  });

  it('reads expressions in any case of op, and lists the keys they name', () => {
    const filter = parseFilters([{ op: 'or', conditions: [{ op: 'in', key: 'k', values: [1, 'x'] }, { op: 'NOT', condition: { op: 'gt', key: 'year', value: 2020 } }] }]);
    expect(filter).toEqual({
      op: 'AND',
      conditions: [{ op: 'OR', conditions: [{ op: 'IN', key: 'k', values: [1, 'x'] }, { op: 'NOT', condition: { op: 'GT', key: 'year', value: 2020 } }] }],
    });
    expect([...filterKeysOf(filter)].sort()).toEqual(['k', 'year']);
  });

  it.each([
    [['x'], /must be an object with "op"/],
    [{ 'a b': 1 }, /filter key "a b"/],
    [{ a: { nested: 1 } }, /string, a finite number, a boolean or null/],
    [{ a: Number.NaN }, /finite number/],
    ['text', /filters must be an object/],
    [[{ op: 'LIKE', key: 'a', value: 'x' }], /unknown filter operator "LIKE"/],
    [[{ op: 'IN', key: 'a', values: [] }], /IN needs "values"/],
    [[{ op: 'CONTAINS', key: 'a', value: 1 }], /CONTAINS compares with a string/],
    [[{ op: 'GT', key: 'a', value: true }], /GT compares with a number or a string/],
    [[{ op: 'AND', conditions: [] }], /AND needs "conditions"/],
    [[{ op: 'EQ', value: 1 }], /filter key undefined/],
  ])('refuses %j with BAD_REQUEST saying why', (filters, message) => {
    let error: unknown;
    try {
      parseFilters(filters);
    } catch (e) {
      error = e;
    }
    expect(RuntimeError.isInstance(error) && error.code).toBe('BAD_REQUEST');
    expect((error as Error).message).toMatch(message);
  });

  it('refuses nesting deeper than 10 levels', () => {
    let deep: Record<string, unknown> = { op: 'EQ', key: 'a', value: 1 };
    for (let i = 0; i < 11; i++) deep = { op: 'NOT', condition: deep };
    expect(() => parseFilters([deep])).toThrow(/nested deeper than 10 levels/);
  });
});

describe('queryTokens', () => {
  it('keeps letters and digits only, lower-cased and deduplicated', () => {
    // "AND" is an operator to FTS5 and a function word here: dropped either way.
    expect(queryTokens('"Vector" AND vector* NEAR(pg) -- café 2024')).toEqual(['vector', 'near', 'pg', 'café', '2024']);
  });

  it('drops English function words, unless nothing else is left', () => {
    expect(queryTokens('How do I configure the backup schedule of my database?')).toEqual(['configure', 'backup', 'schedule', 'database']);
    expect(queryTokens('The Who')).toEqual(['the', 'who']);
    expect(queryTokens('to be or not to be')).toEqual(['to', 'be', 'or', 'not']);
  });
});
