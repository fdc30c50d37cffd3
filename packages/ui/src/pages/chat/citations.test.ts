import { describe, expect, it } from 'vitest';
import { citationsOf, queryOf } from './citations';

describe('citationsOf', () => {
  it('reads each numbered hit with its name and passage', () => {
    const result = '[1] garden.md\nComfrey grows in shade.\nIt likes water.\n\n[2] rain.md\nA cistern stores rain water.';
    expect(citationsOf(result)).toEqual([
      { n: 1, name: 'garden.md', text: 'Comfrey grows in shade.\nIt likes water.' },
      { n: 2, name: 'rain.md', text: 'A cistern stores rain water.' },
    ]);
  });

  it('keeps a hit without a name, and a passage line that looks like a heading out of order', () => {
    const result = '[1]\nFirst passage\n[3] not a heading\n\n[2] b.txt\nSecond';
    expect(citationsOf(result)).toEqual([
      { n: 1, name: undefined, text: 'First passage\n[3] not a heading' },
      { n: 2, name: 'b.txt', text: 'Second' },
    ]);
  });

  it('finds nothing in a result with no hits', () => {
    expect(citationsOf('No relevant passages found.')).toEqual([]);
    expect(citationsOf('')).toEqual([]);
  });
});

describe('queryOf', () => {
  it('reads the query argument, and nothing from other arguments', () => {
    expect(queryOf('{"query":"comfrey","limit":3}')).toBe('comfrey');
    expect(queryOf('{"limit":3}')).toBeUndefined();
    expect(queryOf('not json')).toBeUndefined();
  });
});
