import { describe, expect, it } from 'vitest';
import { Gatherer, MAX_TEXT_CHARS, planBatches, prepare } from './batches.js';

const shape = (batches: { text: number; part: string; parts: number }[][]) => batches.map((b) => b.map((u) => `${u.text}:${u.part.length}/${u.parts}`));

describe('planBatches', () => {
  it('packs consecutive texts by count and characters, a long text cut in parts of at most 2,000', async () => {
    expect(shape(await planBatches(['a', 'b', 'c', 'd', 'e'], 2, 100))).toEqual([['0:1/1', '1:1/1'], ['2:1/1', '3:1/1'], ['4:1/1']]);
    expect(shape(await planBatches(['aaaa', 'bbbb', 'cc', 'd'], 10, 6))).toEqual([['0:4/1'], ['1:4/1', '2:2/1'], ['3:1/1']]);
    const long = 'word '.repeat(900); // 4,500 characters: parts of 2,000, 2,000 and 500
    expect(shape(await planBatches(['x', long, 'y'], 16, 2_000))).toEqual([['0:1/1'], ['1:2000/3'], ['1:2000/3'], ['1:500/3', '2:1/1']]);
  });

  it('caps a text at 20,000 characters and sends an empty one as a space', () => {
    expect(prepare('x'.repeat(MAX_TEXT_CHARS + 5))).toHaveLength(MAX_TEXT_CHARS);
    expect(prepare(`${'x'.repeat(MAX_TEXT_CHARS - 1)}😀`)).toHaveLength(MAX_TEXT_CHARS - 1);
    expect(prepare('')).toBe(' ');
  });
});

describe('Gatherer', () => {
  it('normalises a text of one part, and sums a text’s parts before normalising', () => {
    const gathered = new Gatherer(2, 2);
    const units = [
      { text: 0, part: 'p', parts: 2 },
      { text: 1, part: 'q', parts: 1 },
    ];
    gathered.add(units, new Float32Array([3, 0, 0, 2]));
    expect(gathered.vectors()).toEqual([[], [0, 1]]);
    gathered.add([{ text: 0, part: 'r', parts: 2 }], new Float32Array([0, 4]));
    expect(gathered.vectors()).toEqual([[0.6, 0.8], [0, 1]]);
  });
});
