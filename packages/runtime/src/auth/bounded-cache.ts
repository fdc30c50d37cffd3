/**
 * @module auth/bounded-cache
 * A small, approximately LRU map with per-entry expiry. Map iteration order is insertion order,
 * so re-inserting on a hit keeps the most recently used entries and the oldest one is evicted
 * first. A hit re-inserts at most once per REORDER_MS: the delete and set cost a hot path (a
 * cached token on every request) more than the exact order is worth.
 */

const REORDER_MS = 1000;

export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; movedAt: number }>();

  constructor(private readonly maxEntries: number) {}

  get(key: string, now = Date.now()): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    if (now - hit.movedAt >= REORDER_MS) {
      hit.movedAt = now;
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit.value;
  }

  set(key: string, value: V, expiresAt: number, now = Date.now()): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt, movedAt: now });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
