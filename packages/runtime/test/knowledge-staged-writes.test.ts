/**
 * Replacing a content's chunks is all or nothing for searches, on both stores: a search while
 * a new version is written sees the old version or the new one, whole, never a mix and never
 * nothing; a write that fails part-way leaves the old version as it was and nothing of the new
 * one. On SQLite, where the write is split into small transactions (so 100k chunks do not hold
 * the event loop), a writer killed with SIGKILL mid-write also leaves nothing visible, and the
 * next store to open the file removes its rows. A table made before versions keeps working.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { StoredChunk, VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import { postgresTestDatabase } from './support/databases.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-staged-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.toReversed()) await c();
  rmSync(dir, { recursive: true, force: true });
});

const N = 3000;
const D = 16;

function vector(i: number, shift: number): number[] {
  return Array.from({ length: D }, (_, d) => Math.sin(i * 0.37 + d + shift));
}

function version(word: 'oldword' | 'newword', count = N): StoredChunk[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${word}_${i}`,
    content: `${word} chunk number ${i}`,
    meta_data: { chunk: i + 1, word },
    filters: { word },
    embedding: vector(i, word === 'oldword' ? 0 : 0.5),
  }));
}

/** Chunks of each version one search finds (one query, so one snapshot of the store). */
async function counts(store: VectorStore): Promise<[number, number]> {
  const hits = await store.search({ searchType: 'keyword', query: 'oldword newword', limit: 2 * N + 10 });
  const old = hits.filter((h) => h.chunk.id.startsWith('oldword')).length;
  return [old, hits.length - old];
}

const stores: { kind: string; available: boolean; open(table: string): Promise<VectorStore> }[] = [
  {
    kind: 'sqlite',
    available: true,
    async open(table) {
      const store = new SqliteVectorStore({ path: join(dir, 'staged.db'), table });
      await store.create();
      cleanups.push(() => store.close());
      return store;
    },
  },
  {
    kind: 'postgres',
    available: postgresTestDatabase.available,
    async open(table) {
      const database = await postgresTestDatabase.create();
      const db = database.open();
      cleanups.push(async () => {
        await db.close();
        await database.cleanup();
      });
      const store = new PostgresVectorStore({ db, table });
      await store.create();
      return store;
    },
  },
];

for (const kind of stores) {
  describe.runIf(kind.available)(`staged writes: ${kind.kind}`, () => {
    it('a search during a write sees the old version or the new one, whole', async () => {
      const store = await kind.open('staged_search');
      await store.upsert('c', version('oldword'), 'test:sine');
      const write = store.upsert('c', version('newword'), 'test:sine');
      const state = { done: false };
      void write.finally(() => (state.done = true));
      const seen: [number, number][] = [];
      const ids = new Set<string>();
      while (!state.done) {
        // Searches arrive as requests do, between the write's batches (SQLite search is synchronous).
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(await counts(store));
        const hits = await store.search({ searchType: 'vector', query: '', vector: vector(7, 0), limit: 50 });
        expect(hits).toHaveLength(50);
        ids.add(hits.every((h) => h.chunk.id.startsWith('oldword')) ? 'old' : hits.every((h) => h.chunk.id.startsWith('newword')) ? 'new' : 'mixed');
      }
      await write;
      seen.push(await counts(store));
      for (const pair of seen) expect([[N, 0], [0, N]]).toContainEqual(pair);
      expect(ids.has('mixed')).toBe(false);
      // The searches did run while the write was under way.
      expect(seen.some(([old]) => old === N)).toBe(true);
      expect(seen.at(-1)).toEqual([0, N]);
      expect(await store.contentExists('c')).toBe(true);
    }, 120_000);

    it('a write that fails part-way leaves the old version whole and nothing of the new one', async () => {
      const store = await kind.open('staged_fail');
      await store.upsert('c', version('oldword'), 'test:sine');
      const broken = version('newword');
      // A repeated chunk id violates the key once most of the rows are written.
      broken[N - 10] = { ...broken[N - 10]!, id: broken[0]!.id };
      await expect(store.upsert('c', broken, 'test:sine')).rejects.toThrow('Storage operation failed');
      expect(await counts(store)).toEqual([N, 0]);
      expect(await store.filterKeys()).toEqual(['word']);
    }, 120_000);

    it('deleting a content hides it at once and removes every row', async () => {
      const store = await kind.open('staged_delete');
      await store.upsert('c', version('oldword'), 'test:sine');
      await store.upsert('d', version('newword', 5), 'test:sine');
      expect(await store.deleteByContentId('c')).toBe(N);
      expect(await counts(store)).toEqual([0, 5]);
      expect(await store.contentExists('c')).toBe(false);
      expect(await store.deleteByContentId('c')).toBe(0);
    }, 120_000);
  });
}

describe('staged writes: sqlite only', () => {
  it('a writer killed mid-write leaves nothing visible, and the next store to open the file removes its rows', async () => {
    const path = join(dir, 'killed.db');
    const first = new SqliteVectorStore({ path });
    await first.create();
    await first.upsert('c', version('oldword'), 'test:sine');
    await first.close();
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'staged-writer.ts'), path, 'c', '200000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Kill it once a good part of the new version is on disk.
    const peek = new Database(path, { readonly: true });
    try {
      for (let i = 0; ; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const rows = (peek.prepare(`SELECT count(*) AS n FROM svc_knowledge_chunks`).get() as { n: number }).n;
        if (rows > N + 20_000) break;
        if (i > 1200) throw new Error('the writer never got going');
      }
    } finally {
      peek.close();
    }
    child.kill('SIGKILL');
    await exited;

    const raw = new Database(path);
    const rowsAfterKill = (raw.prepare(`SELECT count(*) AS n FROM svc_knowledge_chunks`).get() as { n: number }).n;
    raw.close();
    expect(rowsAfterKill).toBeGreaterThan(N + 20_000);
    expect(rowsAfterKill).toBeLessThan(N + 200_000);

    const store = new SqliteVectorStore({ path });
    cleanups.push(() => store.close());
    await store.create();
    expect(await counts(store)).toEqual([N, 0]);
    const hits = await store.search({ searchType: 'vector', query: '', vector: vector(3, 0), limit: 20 });
    expect(hits.map((h) => h.chunk.id)).toContain('oldword_3');
    expect(hits.every((h) => h.chunk.id.startsWith('oldword'))).toBe(true);
    const check = new Database(path, { readonly: true });
    expect((check.prepare(`SELECT count(*) AS n FROM svc_knowledge_chunks`).get() as { n: number }).n).toBe(N);
    expect((check.prepare(`SELECT count(*) AS n FROM svc_knowledge_fts`).get() as { n: number }).n).toBe(N);
    expect((check.prepare(`SELECT count(*) AS n FROM svc_knowledge_hidden`).get() as { n: number }).n).toBe(0);
    check.close();
  }, 180_000);

  it('keeps writing and searching a table made before versions, in one transaction per write', async () => {
    const path = join(dir, 'legacy.db');
    const old = new Database(path);
    old.exec(`
      CREATE TABLE legacy_chunks (rowid INTEGER PRIMARY KEY, content_id TEXT NOT NULL, chunk_id TEXT NOT NULL, name TEXT, content TEXT NOT NULL,
        meta_data TEXT NOT NULL, filters TEXT NOT NULL, embedding BLOB, created_at INTEGER NOT NULL, UNIQUE (content_id, chunk_id));
      CREATE VIRTUAL TABLE legacy_fts USING fts5(content, tokenize = 'porter unicode61');
      INSERT INTO legacy_chunks (rowid, content_id, chunk_id, content, meta_data, filters, created_at) VALUES (1, 'x', 'x_1', 'an older turtle', '{}', '{}', 0);
      INSERT INTO legacy_fts (rowid, content) VALUES (1, 'an older turtle');
    `);
    old.close();
    const store = new SqliteVectorStore({ path, table: 'legacy' });
    cleanups.push(() => store.close());
    await store.create();
    expect((await store.search({ searchType: 'keyword', query: 'turtle', limit: 5 })).map((h) => h.chunk.id)).toEqual(['x_1']);
    await store.upsert('x', version('oldword', 10), 'test:sine');
    await store.upsert('x', version('newword', 10), 'test:sine');
    expect(await counts(store)).toEqual([0, 10]);
    expect(await store.search({ searchType: 'keyword', query: 'turtle', limit: 5 })).toEqual([]);
    expect(await store.search({ searchType: 'vector', query: '', vector: vector(1, 0.5), limit: 3 })).toHaveLength(3);
    expect(await store.deleteByContentId('x')).toBe(10);
    expect(await counts(store)).toEqual([0, 0]);
  });
});
