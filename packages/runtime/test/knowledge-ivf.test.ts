/**
 * The SQLite store's IVF index (sqlite-ivf.ts): trained once, in the worker pool, then searched
 * through the probed lists with the same answers as the exact scan on well-separated data, with
 * the exact fallback under filters and owner scope, never showing hidden or deleted rows, and
 * trained again after a reindex swaps the vectors; on by default, and kept current by a store
 * that opts out of searching through it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFilters } from '../src/knowledge/vector-stores/filter-language.js';
import { IVF_DEFAULTS } from '../src/knowledge/vector-stores/sqlite/ivf.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { StoredChunk } from '../src/knowledge/vector-stores/vector-store.js';
import { WorkerPool, type RunOptions } from '../src/workers/pool.js';

const DIMS = 32;
const CLUSTERS = 8;

/** Counts the tasks it runs, so a test can see training went to the pool, and how often. */
class CountingPool extends WorkerPool {
  readonly tasks: string[] = [];
  override run<T>(task: string, payload: unknown, options?: RunOptions): Promise<T> {
    this.tasks.push(task);
    return super.run<T>(task, payload, options);
  }
}

const pool = new CountingPool({ size: 1 });
afterAll(() => pool.close());

/** Deterministic noise. */
function noise(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296 - 0.5;
  };
}

/** A vector near the axis of `cluster` (well separated: clusters are orthogonal axes). */
function vectorNear(cluster: number, rand: () => number, spread = 0.2): number[] {
  return Array.from({ length: DIMS }, (_, d) => (d === cluster * (DIMS / CLUSTERS) ? 1 : 0) + rand() * spread);
}

function chunksFor(contentId: string, count: number, seed: number, extra: Record<string, unknown> = {}): StoredChunk[] {
  const rand = noise(seed);
  return Array.from({ length: count }, (_, i) => ({
    id: `${contentId}-${i}`,
    content: `chunk ${i} of ${contentId}`,
    meta_data: { cluster: i % CLUSTERS, ...extra },
    filters: { cluster: i % CLUSTERS, ...extra },
    embedding: vectorNear(i % CLUSTERS, rand),
  }));
}

let dir: string;
const open: SqliteVectorStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ivf-'));
  pool.tasks.length = 0;
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function store(options: { ivf?: boolean; trainAt?: number; probes?: number } = {}): Promise<SqliteVectorStore> {
  const s = new SqliteVectorStore({
    path: join(dir, 'k.db'),
    ...(options.ivf === false ? { ivf: false as const } : { ivf: { lists: CLUSTERS, probes: options.probes ?? 1, trainAt: options.trainAt ?? 400 }, offload: pool }),
  });
  await s.create();
  open.push(s);
  return s;
}

const ids = (hits: { chunk: { id: string } }[]) => hits.map((h) => h.chunk.id);

function unlisted(): number {
  const raw = new Database(join(dir, 'k.db'));
  try {
    return (raw.prepare('SELECT count(*) AS n FROM svc_knowledge_chunks c WHERE NOT EXISTS (SELECT 1 FROM svc_knowledge_ivf_lists l WHERE l.rowid = c.rowid)').get() as { n: number }).n;
  } finally {
    raw.close();
  }
}

describe('SQLite IVF index', () => {
  it('is on by default with the documented settings; off when quantized candidates are chosen; bad settings refused', async () => {
    const plain = new SqliteVectorStore({ path: join(dir, 'a.db') });
    const quantized = new SqliteVectorStore({ path: join(dir, 'b.db'), quantizedCandidates: {} });
    const both = new SqliteVectorStore({ path: join(dir, 'c.db'), quantizedCandidates: {}, ivf: { probes: 20 } });
    open.push(plain, quantized, both);
    expect(plain.ivf.mode).toBe('search');
    expect(plain.ivf.settings).toEqual(IVF_DEFAULTS);
    expect(IVF_DEFAULTS).toEqual({ lists: 512, probes: 64, trainAt: 10_000 });
    expect(plain.description).toContain('k-means lists from 10000 chunks');
    expect(quantized.ivf.mode).toBe('maintain');
    expect(both.ivf.mode).toBe('search');
    expect(both.ivf.settings).toEqual({ ...IVF_DEFAULTS, probes: 20 });
    expect(() => new SqliteVectorStore({ path: join(dir, 'd.db'), ivf: { lists: 0 } })).toThrow(/ivf.lists must be a whole number/);
  });

  it('is kept current by a store opened with ivf: false, which searches exactly and never trains; the index then serves its rows', async () => {
    // Two probes: k-means may split one of the eight clusters over two lists.
    const searching = await store({ probes: 2 });
    await searching.upsert('doc', chunksFor('doc', 800, 21), 'e');
    await searching.ivfSettled();
    const exact = await store({ ivf: false });
    // A large write (lists computed in the pool), a small one (at insert) and a delete, all by the opted-out store.
    await exact.upsert('late', chunksFor('late', 600, 22), 'e');
    await exact.upsert('small', chunksFor('small', 16, 23), 'e');
    await exact.upsert('gone', chunksFor('gone', 40, 24), 'e');
    await exact.deleteByContentId('gone');
    expect(unlisted()).toBe(0);
    const raw = new Database(join(dir, 'k.db'));
    try {
      const lists = (raw.prepare('SELECT count(*) AS n FROM svc_knowledge_ivf_lists').get() as { n: number }).n;
      expect(lists).toBe(800 + 600 + 16);
    } finally {
      raw.close();
    }
    for (let q = 0; q < 8; q++) {
      const vector = vectorNear(q, noise(300 + q));
      const filter = parseFilters({ cluster: q });
      const want = await exact.search({ searchType: 'vector', query: '', vector, limit: 20 });
      const got = await searching.search({ searchType: 'vector', query: '', vector, limit: 20 });
      expect(ids(got)).toEqual(ids(want));
      expect(got.some((h) => h.chunk.content_id !== 'doc')).toBe(true);
      expect(await searching.search({ searchType: 'vector', query: '', vector, limit: 5, filter })).toHaveLength(5);
    }
    expect(exact.ivf.searches).toBe(0);
    expect(searching.ivf.searches).toBeGreaterThanOrEqual(8);
    expect(exact.ivf.trainings + searching.ivf.trainings).toBe(1);
  });

  it('trains once, in the worker pool, without holding the event loop; a second process on the file picks the centroids up', async () => {
    const a = await store();
    const b = await store();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    await a.upsert('doc', chunksFor('doc', 800, 1), 'e');
    // a is training now; b's write starts its own attempt, which must find a's claim and leave it.
    await b.upsert('doc2', chunksFor('doc2', 16, 2), 'e');
    await Promise.all([a.ivfSettled(), b.ivfSettled()]);
    delay.disable();
    expect(pool.tasks.filter((t) => t === 'ivf-train')).toHaveLength(1);
    expect(pool.tasks).toContain('ivf-assign');
    expect((a.ivf.trainings ?? 0) + (b.ivf.trainings ?? 0)).toBe(1);
    // Generous: the point is that no step holds the loop for a training's length.
    expect(delay.max / 1e6).toBeLessThan(500);
    const query = vectorNear(3, noise(99), 0);
    const before = b.ivf.searches ?? 0;
    const hits = await b.search({ searchType: 'vector', query: '', vector: query, limit: 10 });
    expect(hits).toHaveLength(10);
    expect(b.ivf.searches).toBe(before + 1);
  });

  it("leaves training to another live process that claimed it, and takes over a dead process's claim", async () => {
    const s = await store({ trainAt: 100_000 });
    await s.upsert('doc', chunksFor('doc', 800, 14), 'e');
    const claim = (owner: string) => {
      const raw = new Database(join(dir, 'k.db'));
      try {
        raw.prepare("INSERT INTO svc_knowledge_meta (key, value) VALUES ('ivf_training', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(owner);
      } finally {
        raw.close();
      }
    };
    // The parent process (alive) claimed it: this store must not train.
    claim(`${process.ppid}:other`);
    const waiting = new SqliteVectorStore({ path: join(dir, 'k.db'), ivf: { lists: CLUSTERS, probes: 1, trainAt: 400 }, offload: pool });
    await waiting.create();
    open.push(waiting);
    await waiting.ivfSettled();
    expect(waiting.ivf.trainings).toBe(0);
    // A claimer whose process is gone (a pid above the kernel's limit) left it: the next attempt trains.
    claim('4194305:dead');
    await waiting.upsert('doc2', chunksFor('doc2', 8, 15), 'e');
    await waiting.ivfSettled();
    expect(waiting.ivf.trainings).toBe(1);
    await waiting.search({ searchType: 'vector', query: '', vector: vectorNear(4, noise(6), 0), limit: 10 });
    expect(waiting.ivf.searches).toBe(1);
  });

  it('returns the exact top k on well-separated data, through the lists', async () => {
    const ivf = await store();
    await ivf.upsert('doc', chunksFor('doc', 800, 3), 'e');
    await ivf.ivfSettled();
    const exact = await store({ ivf: false });
    const again = ivf;
    for (let q = 0; q < 16; q++) {
      const vector = vectorNear(q % CLUSTERS, noise(1000 + q));
      const want = await exact.search({ searchType: 'vector', query: '', vector, limit: 10 });
      const got = await again.search({ searchType: 'vector', query: '', vector, limit: 10 });
      expect(ids(got)).toEqual(ids(want));
    }
    expect(again.ivf.searches).toBe(16);
    expect(exact.ivf.searches).toBe(0);
    // A large write after training gets its lists at insert (computed in the pool): nothing left without one.
    const assigned = pool.tasks.filter((t) => t === 'ivf-assign').length;
    await again.upsert('more', chunksFor('more', 600, 12), 'e');
    expect(pool.tasks.filter((t) => t === 'ivf-assign').length).toBe(assigned + 1);
    expect(unlisted()).toBe(0);
    const vector = vectorNear(6, noise(77));
    expect(ids(await again.search({ searchType: 'vector', query: '', vector, limit: 10 }))).toEqual(ids(await exact.search({ searchType: 'vector', query: '', vector, limit: 10 })));
  });

  it("ranks through the lists' codes in memory once loaded, following this store's writes and reloading after another's", async () => {
    const s = await store({ probes: 2 });
    await s.upsert('doc', chunksFor('doc', 800, 31), 'e');
    await s.ivfSettled();
    const exact = await store({ ivf: false });
    const same = async (q: number, limit = 10) => {
      const vector = vectorNear(q % CLUSTERS, noise(500 + q));
      const got = await s.search({ searchType: 'vector', query: '', vector, limit });
      expect(ids(got)).toEqual(ids(await exact.search({ searchType: 'vector', query: '', vector, limit })));
      return got;
    };
    // The first search starts the load and is answered by SQL over the lists.
    await same(0);
    expect(s.ivf.memorySearches).toBe(0);
    expect(await s.ivf.memoryLoaded()).toBe(true);
    for (let q = 0; q < 8; q++) await same(q);
    expect(s.ivf.memorySearches).toBe(8);
    // This store's own writes go into memory: new rows are found, deleted ones never return.
    await s.upsert('late', chunksFor('late', 40, 32), 'e');
    await s.upsert('doc', chunksFor('doc', 400, 33, { v: 2 }), 'e');
    await s.deleteByContentId('late');
    const before = s.ivf.memorySearches;
    for (let q = 0; q < 8; q++) {
      const hits = await same(q, 30);
      expect(hits.every((h) => h.chunk.content_id === 'doc' && h.chunk.meta_data.v === 2)).toBe(true);
    }
    expect(s.ivf.memorySearches).toBe(before + 8);
    // Exactly the listed rows are in memory: the purged version and the deleted content left it.
    const raw = new Database(join(dir, 'k.db'));
    try {
      expect(s.ivf.memoryRows).toBe((raw.prepare('SELECT count(*) AS n FROM svc_knowledge_ivf_lists').get() as { n: number }).n);
      expect(s.ivf.memoryRows).toBe(400);
    } finally {
      raw.close();
    }
    // Another connection writes: the memory is stale, SQL answers until it is read again.
    await exact.upsert('other', chunksFor('other', 24, 34), 'e');
    const stale = s.ivf.memorySearches;
    await same(3, 40);
    expect(s.ivf.memorySearches).toBe(stale);
    expect(await s.ivf.memoryLoaded()).toBe(true);
    const hits = await same(3, 40);
    expect(s.ivf.memorySearches).toBe(stale + 1);
    expect(hits.some((h) => h.chunk.content_id === 'other')).toBe(true);
  });

  it("answers a trained store's keyword searches on its reader thread, as its own connection would", async () => {
    const s = await store();
    await s.upsert('doc', chunksFor('doc', 800, 41), 'e');
    await s.ivfSettled();
    const here = await store({ ivf: false });
    // A closed reader answers nothing: this store's queries run on its own connection.
    await here.reader!.close();
    for (const [q, query] of ['chunk 7', 'chunk 12 of doc', 'doc', '799'].entries()) {
      const vector = vectorNear(q, noise(700 + q));
      for (const searchType of ['keyword', 'hybrid'] as const) {
        const got = await s.search({ searchType, query, vector, limit: 10 });
        expect(got.length, `${searchType} ${query}`).toBeGreaterThan(0);
        expect(ids(got), `${searchType} ${query}`).toEqual(ids(await here.search({ searchType, query, vector, limit: 10 })));
      }
    }
    const filtered = await s.search({ searchType: 'keyword', query: 'chunk', limit: 5, filter: parseFilters({ cluster: 3 }) });
    expect(filtered).toHaveLength(5);
    expect(filtered.every((h) => h.chunk.meta_data.cluster === 3)).toBe(true);
    expect(s.reader!.answered).toBe(9);
    expect(here.reader!.answered).toBe(0);
  });

  it('falls back to the exact scan under filters and owner scope, keeping exactly `limit` hits', async () => {
    const s = await store();
    // Cluster 0 rows: half shared, and the rest owned by "bob" in every cluster.
    await s.upsert('shared', chunksFor('shared', 400, 4), 'e');
    await s.upsert('bob', chunksFor('bob', 400, 5), 'e', { userId: 'bob' });
    await s.ivfSettled();
    const vector = vectorNear(0, noise(7), 0);
    // Only cluster 5 matches: none of it is in the probed list (cluster 0's).
    const filtered = await s.search({ searchType: 'vector', query: '', vector, limit: 10, filter: parseFilters({ cluster: 5 }) });
    expect(filtered).toHaveLength(10);
    expect(filtered.every((h) => h.chunk.meta_data.cluster === 5)).toBe(true);
    // Alice sees only shared chunks; bob's rank first in the probed list but are not hers.
    const alice = await s.search({ searchType: 'vector', query: '', vector, limit: 60, visibleTo: 'alice' });
    expect(alice).toHaveLength(60);
    expect(alice.every((h) => h.chunk.content_id === 'shared')).toBe(true);
  });

  it('never surfaces a hidden version or a deleted row, and drops their lists', async () => {
    const s = await store();
    await s.upsert('doc', chunksFor('doc', 800, 6, { v: 1 }), 'e');
    await s.ivfSettled();
    const vector = vectorNear(2, noise(8), 0);
    // A large replacement is written in batches that yield: searches run between them.
    const write = s.upsert('doc', chunksFor('doc', 1600, 9, { v: 2 }), 'e');
    const seen = new Set<unknown>();
    const state = { done: false };
    void write.then(() => (state.done = true));
    while (!state.done) {
      const hits = await s.search({ searchType: 'vector', query: '', vector, limit: 10 });
      expect(hits).toHaveLength(10);
      const versions = new Set(hits.map((h) => h.chunk.meta_data.v));
      expect(versions.size).toBe(1);
      seen.add([...versions][0]);
      await new Promise((r) => setImmediate(r));
    }
    await write;
    expect(s.ivf.searches).toBeGreaterThan(0);
    const after = await s.search({ searchType: 'vector', query: '', vector, limit: 10 });
    expect(after.every((h) => h.chunk.meta_data.v === 2)).toBe(true);
    await s.deleteByContentId('doc');
    expect(await s.search({ searchType: 'vector', query: '', vector, limit: 10 })).toHaveLength(0);
    const raw = new Database(join(dir, 'k.db'));
    try {
      expect((raw.prepare('SELECT count(*) AS n FROM svc_knowledge_ivf_lists').get() as { n: number }).n).toBe(0);
    } finally {
      raw.close();
    }
  });

  it('stops training when the store closes, releasing its claim, and the next store trains', async () => {
    const s = new SqliteVectorStore({ path: join(dir, 'k.db'), ivf: { lists: CLUSTERS, probes: 1, trainAt: 400 }, offload: pool });
    await s.create();
    await s.upsert('doc', chunksFor('doc', 800, 13), 'e');
    await s.close();
    expect(s.ivf.trainings).toBe(1);
    const raw = new Database(join(dir, 'k.db'));
    try {
      expect(raw.prepare("SELECT key FROM svc_knowledge_meta WHERE key LIKE 'ivf_%'").pluck().all()).toEqual([]);
    } finally {
      raw.close();
    }
    const next = await store();
    await next.ivfSettled();
    expect(next.ivf.trainings).toBe(1);
    await next.search({ searchType: 'vector', query: '', vector: vectorNear(1, noise(5), 0), limit: 10 });
    expect(next.ivf.searches).toBe(1);
  });

  it('drops the index when a reindex swaps the vectors, and trains again on the new ones', async () => {
    const s = await store();
    await s.upsert('doc', chunksFor('doc', 800, 10), 'e');
    await s.ivfSettled();
    expect(s.ivf.trainings).toBe(1);
    await s.beginReindex('f');
    // The new embedder puts each chunk in another cluster (shifted by 3).
    for (;;) {
      const pending = await s.pendingChunks(200);
      if (pending.length === 0) break;
      const rand = noise(pending.length);
      await s.stageVectors(pending.map((p) => ({ ...p, embedding: vectorNear((Number(p.chunk_id.split('-')[1]) + 3) % CLUSTERS, rand) })));
    }
    const swapped = s.finishReindex('f');
    expect(await swapped).toBe(true);
    await s.ivfSettled();
    expect(s.ivf.trainings).toBe(2);
    const vector = vectorNear(3, noise(11), 0);
    const hits = await s.search({ searchType: 'vector', query: '', vector, limit: 10 });
    expect(hits).toHaveLength(10);
    // Chunks i with i % 8 === 0 now sit in cluster 3.
    expect(hits.every((h) => Number(h.chunk.id.split('-')[1]) % CLUSTERS === 0)).toBe(true);
    expect(s.ivf.searches).toBe(1);
  });
});
