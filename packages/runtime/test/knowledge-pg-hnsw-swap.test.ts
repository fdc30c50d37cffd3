/**
 * A reindex's swap in one runtime while another runtime builds the HNSW index CONCURRENTLY on
 * the same table, on a real server. The build holds its lock on the table until it is done; a
 * swap that locked the embedder record and then queued for the table made every writer queue
 * behind that record holding its snapshot, and the build's last phase waits for such
 * snapshots: a cycle PostgreSQL breaks by aborting one of them (40P01). The swap now waits for
 * the build before it locks anything: the swap, the writer and the build all complete.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import type { StoredChunk } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { seededRandom } from '../src/util/seeded-random.js';
import { postgresTestDatabase, type TestDatabase } from './support/databases.js';

const DIMS = 16;

function vector(next: () => number): number[] {
  const v = Array.from({ length: DIMS }, () => next() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Polls `probe` until it is true or `ms` pass; says which. */
async function until(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe.skipIf(!postgresTestDatabase.available)('PostgreSQL reindex swap during another runtime’s index build', () => {
  let database: TestDatabase;
  let dbA: Db;
  let dbB: Db;
  const stores: PostgresVectorStore[] = [];

  beforeAll(async () => {
    database = await postgresTestDatabase.create();
    dbA = database.open();
    dbB = database.open();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await dbA?.close();
    await dbB?.close();
    await database?.cleanup();
  });

  it('swaps, writes and builds without a deadlock', async () => {
    const next = seededRandom(5);
    // Runtime A: the reindex, searching exactly so that the only build is B's.
    const a = new PostgresVectorStore({ db: dbA, table: 'hd', hnsw: false });
    stores.push(a);
    await a.create();
    for (let c = 0; c < 20; c++) {
      const chunks: StoredChunk[] = Array.from({ length: 50 }, (_, i) => ({ id: String(i), content: `chunk ${c}/${i}`, meta_data: {}, filters: {}, embedding: vector(next) }));
      await a.upsert(`c${c}`, chunks, 'test:old', {});
    }
    await a.beginReindex('test:new');
    for (let page = await a.pendingChunks(500); page.length > 0; page = await a.pendingChunks(500)) {
      await a.stageVectors(page.map((p) => ({ ...p, embedding: vector(next) })));
    }

    // A writer that has not committed: B's concurrent build waits for it before building.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    const settled: Promise<unknown>[] = [];
    try {
      await blocker.query('BEGIN');
      await blocker.query(`UPDATE hd_chunks SET created_at = created_at WHERE content_id = 'c0' AND chunk_id = '0'`);
      // Runtime B opens the table: its index build starts and waits for the writer.
      const b = new PostgresVectorStore({ db: dbB, table: 'hd' });
      stores.push(b);
      await b.create();
      const building = async () =>
        (await dbA.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE 'CREATE INDEX CONCURRENTLY%hd_chunks%' AND wait_event_type = 'Lock'`)).length > 0;
      expect(await until(building, 10_000)).toBe(true);

      // A swaps meanwhile, and a writer of the target's vectors arrives after it.
      const swap = a.finishReindex('test:new');
      settled.push(swap.catch(() => undefined));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const write = a.upsert('late', [{ id: '0', content: 'written during the swap', meta_data: {}, filters: {}, embedding: vector(next) }], 'test:new', {});
      settled.push(write.catch(() => undefined));
      await new Promise((resolve) => setTimeout(resolve, 500));

      // The first writer commits: the build goes on, and every one of them must finish.
      await blocker.query('COMMIT');
      await write;
      expect(await swap).toBe(true);
      await b.hnswSettled();
      const [index] = await dbA.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('hd_chunks_hnsw_half')`);
      expect(index?.valid).toBe(true);
      expect((await a.embedderState()).embedder?.id).toBe('test:new');
      const [late] = await dbA.query<{ n: number | string }>(`SELECT count(*) AS n FROM hd_chunks WHERE content_id = 'late' AND embedding IS NOT NULL`);
      expect(Number(late?.n)).toBe(1);
    } finally {
      await blocker.end().catch(() => undefined);
      await Promise.all(settled);
    }
  }, 120_000);
});
