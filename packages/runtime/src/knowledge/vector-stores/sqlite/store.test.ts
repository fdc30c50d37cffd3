/**
 * What the SQLite store does to keep a large write off the event loop: staged transactions that
 * end once they have used their time slice, the log checkpointed in the worker pool, and the
 * check of vector lengths done before anything is written. Search semantics are the contract
 * (test/knowledge-stores.test.ts, test/knowledge-staged-writes.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../../workers/pool.js';
import { WRITE_BATCH } from './staging.js';
import { SqliteVectorStore } from './store.js';
import type { StoredChunk } from '../vector-store.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-store-'));
const pool = new WorkerPool({ size: 1 });
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

const chunks = (n: number, words: number, dims = 8): StoredChunk[] =>
  Array.from({ length: n }, (_chunk, i) => ({
    id: `c${i}`,
    content: `${Array.from({ length: words }, (_word, w) => `word${(i * 7 + w) % 997}`).join(' ')} end${i}`,
    meta_data: { chunk: i + 1 },
    filters: {},
    embedding: Array.from({ length: dims }, (_value, d) => Math.sin(i + d)),
  }));

/** Event-loop turns (setImmediate callbacks) while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  running = false;
  return turns;
}

describe('SqliteVectorStore large writes', () => {
  it('ends a write transaction once it has used its time slice, not only after WRITE_BATCH rows', async () => {
    const store = new SqliteVectorStore({ path: join(dir, 'slices.db'), offload: 'inline' });
    await store.create();
    // Long texts make each row slow to index: 500 of them take far longer than one slice.
    const slow = chunks(1500, 1200);
    const turns = await turnsDuring(() => store.upsert('slow', slow, 'test:sine'));
    // Cut at WRITE_BATCH rows only, the write would let the loop turn about 1500/500 = 3 times.
    expect(turns).toBeGreaterThan(3 * (slow.length / WRITE_BATCH));
    const hits = await store.search({ searchType: 'keyword', query: 'end1499', limit: 5 });
    expect(hits.map((h) => h.chunk.id)).toEqual(['c1499']);
    await store.close();
  });

  it("checkpoints the log of a large write in the worker pool, on the store's file", async () => {
    const path = join(dir, 'checkpoints.db');
    const tasks: unknown[] = [];
    const spying = new Proxy(pool, {
      get(target, key) {
        if (key === 'run') {
          return (task: string, payload: unknown, options: unknown) => {
            tasks.push({ task, payload });
            return target.run(task, payload, options as never);
          };
        }
        return Reflect.get(target, key) as unknown;
      },
    });
    const store = new SqliteVectorStore({ path, offload: spying });
    await store.create();
    // The thread is started (and, under tsx, compiles the task) before the write, not during it.
    await pool.run('sqlite-checkpoint', { path });
    await store.upsert('big', chunks(4000, 20, 64), 'test:sine');
    await store.close();
    expect(tasks.length).toBeGreaterThan(1);
    expect(new Set(tasks.map((t) => JSON.stringify(t)))).toEqual(new Set([JSON.stringify({ task: 'sqlite-checkpoint', payload: { path } })]));
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT count(*) AS n FROM svc_knowledge_chunks').get()).toEqual({ n: 4000 });
    check.close();
  });

  it('refuses vectors of mixed lengths before writing anything, the embedder record included', async () => {
    const path = join(dir, 'mixed.db');
    const store = new SqliteVectorStore({ path, offload: 'inline' });
    await store.create();
    const mixed = chunks(3000, 3);
    mixed[2500] = { ...mixed[2500]!, embedding: [1, 2, 3] };
    await expect(store.upsert('mixed', mixed, 'test:sine')).rejects.toThrow(/mixed lengths/);
    expect(await store.contentExists('mixed')).toBe(false);
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT count(*) AS n FROM svc_knowledge_chunks').get()).toEqual({ n: 0 });
    expect(check.prepare("SELECT value FROM svc_knowledge_meta WHERE key = 'embedder'").get()).toBeUndefined();
    check.close();
    await store.close();
  });
});
