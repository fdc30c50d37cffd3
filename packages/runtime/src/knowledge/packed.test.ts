/**
 * @module knowledge/packed.test
 * Packed documents and chunks come back exactly as they went (keys, their order, absent and
 * undefined names and ids, metadata), or are not packed at all.
 */
import { describe, expect, it } from 'vitest';
import { isPacked, packRecords, unpackRecords, unpackRecordsNow, type PackableRecord } from './packed.js';

/** `[1, <hole>, 3]`: JSON would turn the hole into null. */
function holey(): number[] {
  const list = [1, 2, 3];
  delete list[1];
  return list;
}

describe('packRecords', () => {
  const records: PackableRecord[] = [
    { content: 'first', name: 'doc', id: 'doc_1', meta_data: { page: 1, tags: ['a', 'b'], nested: { deep: [1, { x: null }] }, flag: true } },
    { content: '', meta_data: {} },
    { content: 'ünïcödé 😀', name: undefined, id: 'only-id', meta_data: { title: 'T' } },
    { content: 'named', name: 'n', meta_data: { chunk: 3, chunk_size: 5 } },
  ];

  it('round-trips records exactly, through a structured clone, at once or in slices', async () => {
    const packed = packRecords(records);
    expect(isPacked(packed)).toBe(true);
    const cloned = structuredClone(packed);
    expect(unpackRecordsNow(cloned)).toStrictEqual(records);
    expect(await unpackRecords(cloned)).toStrictEqual(records);
    for (const [i, record] of (await unpackRecords(cloned)).entries()) expect(Object.keys(record)).toEqual(Object.keys(records[i]!));
  });

  it('round-trips many records', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({ content: `row ${i}`, name: 'rows', id: `rows_${i}`, meta_data: { row_number: i } }));
    expect(await unpackRecords(structuredClone(packRecords(many)))).toStrictEqual(many);
  });

  it('leaves records as they are when JSON would change them', () => {
    for (const meta of [{ when: new Date(0) }, { gone: undefined }, { n: Number.NaN }, { z: -0 }, { list: holey() }]) {
      const odd = [{ content: 'x', meta_data: meta }];
      expect(packRecords(odd as PackableRecord[])).toStrictEqual(odd);
    }
    const extra = [{ content: 'x', meta_data: {}, score: 1 }];
    expect(packRecords(extra)).toStrictEqual(extra);
    const reordered = [{ meta_data: {}, content: 'x' }];
    expect(packRecords(reordered)).toStrictEqual(reordered);
    expect(unpackRecordsNow(reordered)).toBe(reordered);
  });
});
