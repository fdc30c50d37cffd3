import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random.js';

const take = (seed: number) => Array.from({ length: 1000 }, seededRandom(seed));

describe('seededRandom', () => {
  it('repeats its sequence for a seed, differs between seeds, and stays in [0, 1)', () => {
    const a = take(7);
    expect(take(7)).toEqual(a);
    expect(take(8)).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
    // Not stuck in a corner: the mean of 1000 draws is near a half.
    expect(Math.abs(a.reduce((s, x) => s + x, 0) / a.length - 0.5)).toBeLessThan(0.05);
  });
});
