/**
 * PostgreSQL vector search through pgvector's HNSW index, on a real server: a filter or a
 * user's scope that keeps 1 % of the rows still gets exactly `limit` hits through the index's
 * iterative scan (and through the exact fallback when the scan is cut short); on a small set
 * the index answers what exact search answers; a table left by the previous version (rows and
 * a full-precision index) gets the halfvec index built CONCURRENTLY, writes going on meanwhile,
 * and the indexes narrowed searches reach their rows through. (Narrowed searches answered
 * exactly over those rows: knowledge-pg-narrowed.test.ts; here the walk alone,
 * `exactNarrowedRows: 0`.)
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import type { SearchHit, SearchRequest } from '../src/knowledge/vector-stores/vector-store.js';
import { postgresTestDatabase } from './support/databases.js';
import { DIMS, fill, ownedByU1, postgresStores, recording, vectors } from './support/pg-vectors.js';

describe.skipIf(!postgresTestDatabase.available)('PostgreSQL HNSW search', () => {
  const pgs = postgresStores();
  const open = pgs.open;

  describe('selective filters and scopes', () => {
    const N = 6000;
    let exact: PostgresVectorStore;
    let queries: number[][];
    beforeAll(async () => {
      exact = await open('hf', false);
      await fill(exact, N, 1);
      queries = vectors(12, 99);
    });

    // Every narrowed search walks the index (iteratively). A scope on user_id has statistics, and
    // with the candidates a narrowed search takes (8 times limit) the planner chose to score every
    // row of the table instead (exact, and 10-20 times slower at 100k): it is kept off that scan.
    const throughIndex = /Index Scan using hf_chunks_hnsw_half/;
    const narrowed: [string, Partial<SearchRequest>, RegExp, (h: SearchHit) => boolean][] = [
      ['a metadata filter matching 1 %', { filters: { group: 7 } }, throughIndex, (h) => h.chunk.meta_data.group === 7],
      ['a user scope of 1 % (shared chunks: none)', { visibleTo: 'u1' }, throughIndex, ownedByU1],
      ['a filter and a scope together', { filters: { base: 'kb1' }, visibleTo: 'u1' }, throughIndex, (h) => ownedByU1(h) && h.chunk.meta_data.base === 'kb1'],
    ];

    for (const [name, narrowing, plan, matches] of narrowed) {
      it(`returns exactly limit hits, the exact ones, in one query under ${name}`, async () => {
        // A first pass of 10 candidates holds ~0.1 matching rows: only the iterative scan finds 10.
        const log: { sql: string; plan?: string }[] = [];
        const store = await open('hf', { efSearch: 10, filteredEfSearch: 10, exactNarrowedRows: 0 }, recording(pgs.db, log));
        await store.hnswSettled();
        expect(store.hnswIndex).toMatchObject({ name: 'hf_chunks_hnsw_half', dims: DIMS, half: true });
        let agreed = 0;
        for (const vector of queries) {
          const request: SearchRequest = { searchType: 'vector', query: '', vector, limit: 10, ...narrowing };
          log.length = 0;
          const hits = await store.search(request);
          // One query: the exact fallback was not needed.
          const reads = log.filter((e) => e.sql.includes('FROM hf_chunks'));
          expect(reads).toHaveLength(1);
          expect(reads[0]!.plan).toMatch(plan);
          expect(log.map((e) => e.sql)).toContain('SET LOCAL hnsw.iterative_scan = relaxed_order');
          expect(hits).toHaveLength(10);
          const truth = (await exact.search(request)).map((h) => h.chunk.id);
          expect(truth).toHaveLength(10);
          expect(hits.filter((h) => !matches(h))).toEqual([]);
          agreed += hits.filter((h) => truth.includes(h.chunk.id)).length;
          // Re-sorted by full-precision distance: scores descend.
          for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
        }
        expect(agreed / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
      }, 120_000);
    }

    it('falls back to exact search when the index scan is cut short, still returning exactly limit hits', async () => {
      // 5 index tuples per search: the iterative scan stops long before 10 rows of group 7.
      const store = await open('hf', { efSearch: 5, filteredEfSearch: 5, maxScanTuples: 5, exactNarrowedRows: 0 });
      await store.hnswSettled();
      for (const vector of queries.slice(0, 4)) {
        const request: SearchRequest = { searchType: 'vector', query: '', vector, limit: 10, filters: { group: 7 } };
        const hits = (await store.search(request)).map((h) => h.chunk.id);
        expect(hits).toEqual((await exact.search(request)).map((h) => h.chunk.id));
      }
      // Fewer matches than limit: all of them, from the exact scan.
      const few = await store.search({ searchType: 'vector', query: '', vector: queries[0]!, limit: 100, filters: { group: 7 }, visibleTo: 'u1' });
      expect(few.map((h) => h.chunk.id)).toEqual(['107']);
    }, 120_000);

    it('hybrid search asks the vector side for more candidates than ef_search and still gets them', async () => {
      const store = await open('hf', { efSearch: 10, filteredEfSearch: 10 });
      await store.hnswSettled();
      const hits = await store.search({ searchType: 'vector', query: '', vector: queries[1]!, limit: 50 });
      expect(hits).toHaveLength(50);
    }, 60_000);
  });

  it('answers what exact search answers on a small set, in the same order', async () => {
    const exact = await open('hs', false);
    await fill(exact, 500, 2);
    const store = await open('hs');
    await store.hnswSettled();
    expect(store.hnswIndex?.half).toBe(true);
    for (const vector of vectors(20, 7)) {
      for (const narrowing of [{}, { filters: { group: 3 } }, { visibleTo: 'u1' }]) {
        const request: SearchRequest = { searchType: 'vector', query: '', vector, limit: 5, ...narrowing };
        const ids = (await store.search(request)).map((h) => h.chunk.id);
        expect(ids).toEqual((await exact.search(request)).map((h) => h.chunk.id));
      }
    }
  }, 120_000);

  it('indexes a table the previous version left (rows, a full-precision index) CONCURRENTLY, writes going on', async () => {
    // As the previous version left it: rows, and its HNSW index on the column cast to vector(dims).
    const old = await open('hm', false);
    const before = await fill(old, 2000, 3);
    const [{ schema } = { schema: 'public' }] = await pgs.db.query<{ schema: string }>(`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`);
    await pgs.db.execute(`CREATE INDEX hm_chunks_hnsw ON hm_chunks USING hnsw ((embedding::"${schema}".vector(${DIMS})) "${schema}".vector_cosine_ops) WITH (m = 16, ef_construction = 64)`);
    // A reader holding a snapshot: a concurrent build waits for it; writers must not.
    const reader = new pg.Client({ connectionString: pgs.url });
    await reader.connect();
    await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await reader.query('SELECT count(*) FROM hm_chunks');
    let built = false;
    try {
      const store = await open('hm');
      void store.hnswSettled().then(() => (built = true));
      // Meanwhile searches use the old index, and a write goes through.
      expect(store.hnswIndex).toMatchObject({ name: 'hm_chunks_hnsw', half: false });
      const fresh = vectors(1, 42)[0]!;
      await store.upsert('new', [{ id: 'new-1', content: 'written during the build', meta_data: {}, filters: {}, embedding: fresh }], 'test:clustered', {});
      expect(built).toBe(false);
      const hits = await store.search({ searchType: 'vector', query: '', vector: fresh, limit: 3 });
      expect(hits[0]?.chunk.id).toBe('new-1');
      await reader.query('COMMIT');
      await store.hnswSettled();
      expect(built).toBe(true);
      expect(store.hnswIndex).toEqual({ name: 'hm_chunks_hnsw_half', dims: DIMS, half: true });
      const indexes = await pgs.db.query<{ name: string; valid: boolean }>(
        `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass('hm_chunks') AND c.relname LIKE 'hm_chunks_hnsw%'`,
      );
      // The old index went once the new one served.
      expect(indexes).toEqual([{ name: 'hm_chunks_hnsw_half', valid: true }]);
      // The indexes narrowed searches reach their rows through were built on the old table too.
      const narrowing = await pgs.db.query<{ name: string; valid: boolean }>(
        `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass('hm_chunks') AND c.relname IN ('hm_chunks_meta', 'hm_chunks_user', 'hm_chunks_tenant') ORDER BY 1`,
      );
      expect(narrowing).toEqual(['hm_chunks_meta', 'hm_chunks_tenant', 'hm_chunks_user'].map((name) => ({ name, valid: true })));
      // The row written during the build is in the new index, and so are the old ones.
      expect((await store.search({ searchType: 'vector', query: '', vector: fresh, limit: 3 }))[0]?.chunk.id).toBe('new-1');
      expect((await store.search({ searchType: 'vector', query: '', vector: before[1234]!, limit: 1 }))[0]?.chunk.id).toBe('1234');
    } finally {
      await reader.end().catch(() => undefined);
    }
  }, 120_000);

  it('drops an interrupted build (an invalid index) and builds again', async () => {
    const exact = await open('hi', false);
    await fill(exact, 300, 4);
    const store = await open('hi');
    await store.hnswSettled();
    // Make it invalid, as a build cancelled mid-way leaves it.
    await pgs.db.execute(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass('hi_chunks_hnsw_half')`);
    const again = await open('hi');
    expect(again.hnswIndex).toBeUndefined();
    await again.hnswSettled();
    expect(again.hnswIndex?.name).toBe('hi_chunks_hnsw_half');
    const [row] = await pgs.db.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('hi_chunks_hnsw_half')`);
    expect(row?.valid).toBe(true);
  }, 60_000);
});
