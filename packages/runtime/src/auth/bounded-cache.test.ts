import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('evicts the least recently used entry once full', () => {
    const cache = new BoundedCache<number>(2);
    cache.set('a', 1, 10_000, 0);
    cache.set('b', 2, 10_000, 0);
    // A hit a second later moves "a" behind "b", so "b" is the oldest.
    expect(cache.get('a', 1000)).toBe(1);
    cache.set('c', 3, 10_000, 1000);
    expect(cache.get('b', 1000)).toBeUndefined();
    expect(cache.get('a', 1000)).toBe(1);
    expect(cache.get('c', 1000)).toBe(3);
  });

  it('reorders on a hit at most once a second, so the order is approximate within it', () => {
    const cache = new BoundedCache<number>(2);
    cache.set('a', 1, 10_000, 0);
    cache.set('b', 2, 10_000, 0);
    expect(cache.get('a', 500)).toBe(1);
    cache.set('c', 3, 10_000, 500);
    // "a" was set less than a second before its hit: still first in line, so it went.
    expect(cache.get('a', 500)).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('drops an entry at its expiry', () => {
    const cache = new BoundedCache<string>(4);
    cache.set('k', 'v', 100, 0);
    expect(cache.get('k', 99)).toBe('v');
    expect(cache.get('k', 100)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with room for nothing, and forgets on delete and clear', () => {
    const none = new BoundedCache<number>(0);
    none.set('a', 1, 10_000, 0);
    expect(none.size).toBe(0);
    const cache = new BoundedCache<number>(3);
    cache.set('a', 1, 10_000, 0);
    cache.set('b', 2, 10_000, 0);
    cache.delete('a');
    expect(cache.get('a', 0)).toBeUndefined();
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
