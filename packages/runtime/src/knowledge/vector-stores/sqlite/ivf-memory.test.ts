import { describe, expect, it } from 'vitest';
import { IvfMemory } from './ivf-memory.js';

/** Deterministic noise in [-0.5, 0.5). */
function noise(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296 - 0.5;
  };
}

const DIMS = 48;
const vector = (rand: () => number, scale = 1) => Array.from({ length: DIMS }, () => rand() * scale);

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    dot += a[d]! * b[d]!;
    na += a[d]! * a[d]!;
    nb += b[d]! * b[d]!;
  }
  return dot / Math.sqrt(na * nb);
}

describe('IvfMemory', () => {
  it("ranks the probed lists' rows by cosine closely enough that the exact top 10 is among the first 40, whatever each vector's length", () => {
    const rand = noise(1);
    const memory = new IvfMemory('g', DIMS, 4);
    const rows = new Map<number, number[]>();
    for (let i = 0; i < 2000; i++) {
      // Lengths from 0.1 to 10: cosine must not favour long vectors.
      const v = vector(rand, 0.1 + (i % 10));
      rows.set(i + 1, v);
      memory.add(i + 1, i % 4, v);
    }
    expect(memory.size).toBe(2000);
    for (let q = 0; q < 20; q++) {
      const query = new Float32Array(vector(rand));
      const exact = [...rows.entries()].sort((a, b) => cosine(b[1], query) - cosine(a[1], query)).slice(0, 10).map(([id]) => id);
      const got = memory.candidates(query, [0, 1, 2, 3], 40);
      expect(got).toHaveLength(40);
      expect(exact.filter((id) => got.includes(id))).toEqual(exact);
      // Only the probed lists are scored.
      const listTwo = memory.candidates(query, [2], 2000);
      expect(listTwo).toHaveLength(500);
      expect(listTwo.every((id) => (id - 1) % 4 === 2)).toBe(true);
    }
  });

  it('removes and replaces rows (a rowid may come back with another vector), keeping the others findable', () => {
    const rand = noise(2);
    const memory = new IvfMemory('g', DIMS, 2);
    const target = vector(rand);
    for (let i = 1; i <= 300; i++) memory.add(i, i % 2, vector(rand));
    for (let i = 1; i <= 300; i += 3) memory.remove(i);
    memory.remove(9999);
    expect(memory.size).toBe(200);
    const all = memory.candidates(new Float32Array(target), [0, 1], 1000);
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1).filter((i) => (i - 1) % 3 !== 0));
    // Rowid 2 comes back in the other list with the query itself as vector: it ranks first.
    memory.add(2, 1, target);
    expect(memory.size).toBe(200);
    expect(memory.candidates(new Float32Array(target), [1], 1)).toEqual([2]);
    expect(memory.candidates(new Float32Array(target), [0], 1000)).not.toContain(2);
    // Wrong length or list: ignored, not stored half.
    memory.add(5000, 0, [1, 2, 3]);
    memory.add(5001, 7, target);
    expect(memory.size).toBe(200);
  });

  it('scores a zero vector as no match rather than failing', () => {
    const memory = new IvfMemory('g', DIMS, 1);
    memory.add(1, 0, new Float32Array(DIMS));
    memory.add(2, 0, new Float32Array(DIMS).fill(1));
    expect(memory.candidates(new Float32Array(DIMS).fill(1), [0], 2)).toEqual([2, 1]);
  });
});
