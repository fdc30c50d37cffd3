/**
 * Clustered vectors and chunk tables for the PostgreSQL HNSW and narrowed-search tests, and a Db
 * that records every statement a store sends (with the plan of each search, by EXPLAIN in the
 * same transaction, so under the same SET LOCAL settings).
 */
import { afterAll, beforeAll } from 'vitest';
import { PostgresVectorStore, type HnswOptions } from '../../src/knowledge/vector-stores/postgres/store.js';
import type { SearchHit, StoredChunk } from '../../src/knowledge/vector-stores/vector-store.js';
import type { Db, SqlClient } from '../../src/storage/db.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { postgresTestDatabase, type TestDatabase } from './databases.js';

export const DIMS = 32;
const CENTRES = 40;

/** Clustered unit vectors: a centre of `CENTRES` plus noise, so neighbourhoods exist. */
export function vectors(count: number, seed: number): number[][] {
  const next = seededRandom(seed);
  const centres = Array.from({ length: CENTRES }, () => Array.from({ length: DIMS }, () => next() * 2 - 1));
  return Array.from({ length: count }, () => {
    const c = centres[Math.floor(next() * CENTRES)]!;
    const v = c.map((x) => x + 0.6 * (next() * 2 - 1));
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  });
}

/** `count` chunks in contents of 100; every 100th chunk in group 7 (1 %), every 100th content owned by user u1. */
export async function fill(store: PostgresVectorStore, count: number, seed: number): Promise<number[][]> {
  const all = vectors(count, seed);
  for (let start = 0; start < count; start += 100) {
    const chunks: StoredChunk[] = [];
    for (let i = start; i < Math.min(count, start + 100); i++) {
      const meta = { group: i % 100, base: `kb${(start / 100) % 4}` };
      chunks.push({ id: String(i), content: `chunk ${i}`, meta_data: meta, filters: meta, embedding: all[i]! });
    }
    const content = start / 100;
    await store.upsert(`c${content}`, chunks, 'test:clustered', { knowledgeId: `kb${content % 4}`, userId: content % 100 === 1 ? 'u1' : `other-${content % 7}` });
  }
  return all;
}

/**
 * The Db with every statement a store sends recorded, and the plan of each search through the
 * index (EXPLAIN in the same transaction, so under the same SET LOCAL settings).
 */
export function recording(db: Db, log: { sql: string; plan?: string }[]): Db {
  const client = (c: SqlClient): SqlClient => ({
    query: async (sql, params) => {
      const entry: { sql: string; plan?: string } = { sql };
      log.push(entry);
      if (sql.includes(') candidates ORDER BY') || sql.includes('WITH scored AS')) entry.plan = (await c.query<Record<string, string>>(`EXPLAIN ${sql}`, params)).map((r) => Object.values(r)[0]).join('\n');
      return c.query(sql, params);
    },
    execute: async (sql, params) => {
      log.push({ sql });
      return c.execute(sql, params);
    },
  });
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'query' || prop === 'execute') return client(target)[prop];
      if (prop === 'transaction') return <T>(fn: (tx: SqlClient) => Promise<T>) => target.transaction((tx) => fn(client(tx)));
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Chunks of the contents `fill` gives user u1. */
export function ownedByU1(h: SearchHit): boolean {
  return Number(h.chunk.content_id.slice(1)) % 100 === 1;
}

/**
 * A PostgreSQL test database for the enclosing describe block, and `open`, which creates a chunk
 * store on it (or on `through`, a recording Db); every store and the database go at the end.
 */
export function postgresStores(): { readonly db: Db; readonly url: string; open(table: string, hnsw?: HnswOptions | false, through?: Db): Promise<PostgresVectorStore> } {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  const stores: PostgresVectorStore[] = [];
  beforeAll(async () => {
    database = await postgresTestDatabase.create();
    db = database.open();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await db?.close();
    await database?.cleanup();
  });
  return {
    get db() {
      return db!;
    },
    get url() {
      return database!.url;
    },
    async open(table, hnsw = {}, through) {
      const store = new PostgresVectorStore({ db: through ?? db!, table, hnsw });
      stores.push(store);
      await store.create();
      return store;
    },
  };
}
