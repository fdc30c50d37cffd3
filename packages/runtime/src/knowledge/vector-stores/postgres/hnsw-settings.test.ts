import { describe, expect, it } from 'vitest';
import { hnswSettings } from './hnsw-settings.js';

describe('hnswSettings', () => {
  it('defaults narrowed searches to exact over up to 15,000 index-reached rows, else 8 times limit re-sorted, beside the other measured defaults', () => {
    expect(hnswSettings({})).toEqual({ m: 16, efConstruction: 64, efSearch: 300, filteredEfSearch: 400, filteredCandidates: 8, maxScanTuples: 20_000, exactNarrowedRows: 15_000, halfvec: true, buildMemory: '1GB' });
    expect(hnswSettings({ exactNarrowedRows: 0 }).exactNarrowedRows).toBe(0);
    expect(hnswSettings({ filteredCandidates: 2 }).filteredCandidates).toBe(2);
  });

  it('refuses a candidate multiple outside 1-100 or not whole, naming the setting', () => {
    for (const bad of [0, 101, 2.5, Number.NaN]) {
      expect(() => hnswSettings({ filteredCandidates: bad })).toThrow(/hnsw\.filteredCandidates must be a whole number from 1 to 100/);
    }
    for (const bad of [-1, 1_000_001, 0.5]) {
      expect(() => hnswSettings({ exactNarrowedRows: bad })).toThrow(/hnsw\.exactNarrowedRows must be a whole number from 0 to 1000000/);
    }
  });
});
