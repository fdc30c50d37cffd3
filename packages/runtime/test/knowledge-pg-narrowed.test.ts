/**
 * Narrowed vector searches on PostgreSQL answered exactly over the rows an index reaches
 * (postgres/narrowed-search.ts), on a real server: a selective filter, a user's scope, both,
 * each returns exactly `limit` hits, the same as exact search and in its order, in one statement
 * whose plan reaches the rows through the GIN / btree index and never walks the HNSW graph; a
 * narrowing matching more rows than `exactNarrowedRows` walks the graph (and is not probed again
 * for a while); one matching nothing
 * answers nothing without a walk; one no index answers walks the graph as before. Vectors are
 * kept in the row (not TOAST), on new tables and on an earlier version's. And the
 * containment the filter compiler adds for the GIN index selects exactly the rows the filter
 * does, for every operator, with the index used and not.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { containmentIsExact, postgresConditions, postgresContainment, postgresFilter } from '../src/knowledge/vector-stores/filter-sql.js';
import type { Filter } from '../src/knowledge/vector-stores/filter-language.js';
import type { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import type { SearchHit, SearchRequest } from '../src/knowledge/vector-stores/vector-store.js';
import type { SqlValue } from '../src/storage/db.js';
import { postgresTestDatabase } from './support/databases.js';
import { fill, ownedByU1, postgresStores, recording, vectors } from './support/pg-vectors.js';

/** 20 chunks of 512-d vectors (about 2 KB each: over PostgreSQL's TOAST threshold). */
const rows = (prefix: string) =>
  Array.from({ length: 20 }, (_row, i) => ({ id: `${prefix}${i}`, content: `chunk ${i}`, meta_data: {}, filters: {}, embedding: Array.from({ length: 512 }, (_dim, d) => Math.sin(i + d)) }));

const eq = (value: string | number | boolean | null, key = 'k'): Filter => ({ op: 'EQ', key, value });

describe.skipIf(!postgresTestDatabase.available)('PostgreSQL narrowed vector search', () => {
  const pgs = postgresStores();
  const open = pgs.open;

  describe('over 6,000 chunks', () => {
    const N = 6000;
    let exact: PostgresVectorStore;
    const queries = vectors(8, 77);
    const log: { sql: string; plan?: string }[] = [];
    let store: PostgresVectorStore;
    const reads = () => log.filter((e) => e.sql.includes('FROM nx_chunks'));
    beforeAll(async () => {
      exact = await open('nx', false);
      await fill(exact, N, 5);
      store = await open('nx', {}, recording(pgs.db, log));
      await store.hnswSettled();
    }, 120_000);

    // 60 rows (1 %), 100 rows (one content of 60), and the 25 of those in base kb1.
    const selective: [string, Partial<SearchRequest>, RegExp, (h: SearchHit) => boolean][] = [
      ['a metadata filter matching 1 %', { filters: { group: 7 } }, /Bitmap Index Scan on nx_chunks_meta/, (h) => h.chunk.meta_data.group === 7],
      ['a user scope', { visibleTo: 'u1' }, /Bitmap Index Scan on nx_chunks_user/, ownedByU1],
      ['a filter list and a scope together', { filter: { op: 'AND', conditions: [{ op: 'EQ', key: 'base', value: 'kb1' }, { op: 'GTE', key: 'group', value: 50 }] }, visibleTo: 'u1' }, /Bitmap Index Scan on nx_chunks_(meta|user)/, (h) => ownedByU1(h) && h.chunk.meta_data.base === 'kb1' && Number(h.chunk.meta_data.group) >= 50],
    ];
    for (const [name, narrowing, reached, matches] of selective) {
      it(`answers ${name} exactly over the rows an index reaches: limit hits, exact search's, one statement, no walk`, async () => {
        for (const vector of queries) {
          const request: SearchRequest = { searchType: 'vector', query: '', vector, limit: 10, ...narrowing };
          log.length = 0;
          const hits = await store.search(request);
          expect(reads()).toHaveLength(1);
          const [read] = reads();
          expect(read!.sql).toContain('WITH scored AS MATERIALIZED');
          expect(read!.plan).toMatch(reached);
          expect(read!.plan).not.toMatch(/hnsw|Seq Scan/);
          expect(log.map((e) => e.sql)).not.toContain('SET LOCAL hnsw.iterative_scan = relaxed_order');
          expect(hits).toHaveLength(10);
          expect(hits.filter((h) => !matches(h))).toEqual([]);
          const truth = await exact.search(request);
          expect(hits.map((h) => h.chunk.id)).toEqual(truth.map((h) => h.chunk.id));
          expect(hits.map((h) => h.score)).toEqual(truth.map((h) => h.score));
        }
      }, 60_000);
    }

    it('walks the graph when the narrowing matches more rows than exactNarrowedRows, probing it only once a while, still limit hits', async () => {
      const walkLog: { sql: string; plan?: string }[] = [];
      const capped = await open('nx', { exactNarrowedRows: 50 }, recording(pgs.db, walkLog));
      // 60 rows of group 7: over the cap of 50.
      for (const [n, vector] of queries.slice(0, 3).entries()) {
        walkLog.length = 0;
        const hits = await capped.search({ searchType: 'vector', query: '', vector, limit: 10, filters: { group: 7 } });
        // Probed the first time only: then remembered as broad.
        expect(walkLog.filter((e) => e.sql.includes('WITH scored AS MATERIALIZED'))).toHaveLength(n === 0 ? 1 : 0);
        const walks = walkLog.filter((e) => e.sql.includes(') candidates ORDER BY'));
        expect(walks).toHaveLength(1);
        expect(walks[0]!.plan).toMatch(/Index Scan using nx_chunks_hnsw_half/);
        expect(walkLog.map((e) => e.sql)).toContain('SET LOCAL hnsw.iterative_scan = relaxed_order');
        expect(hits).toHaveLength(10);
        expect(hits.every((h) => h.chunk.meta_data.group === 7)).toBe(true);
      }
    }, 60_000);

    it('answers a narrowing that matches nothing with nothing, without walking the graph or scanning the table', async () => {
      log.length = 0;
      expect(await store.search({ searchType: 'vector', query: '', vector: queries[0]!, limit: 10, filters: { group: 1000 } })).toEqual([]);
      expect(reads()).toHaveLength(1);
      expect(reads()[0]!.plan).toMatch(/Bitmap Index Scan on nx_chunks_meta/);
    });

    it('walks the graph as before when no index answers the narrowing (a range alone)', async () => {
      log.length = 0;
      const request: SearchRequest = { searchType: 'vector', query: '', vector: queries[1]!, limit: 10, filter: { op: 'LT', key: 'group', value: 3 } };
      const hits = await store.search(request);
      expect(reads().map((e) => e.sql).some((sql) => sql.includes('WITH scored'))).toBe(false);
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => Number(h.chunk.meta_data.group) < 3)).toBe(true);
    });
  });

  it('keeps 512-d vectors in the row, not in TOAST, on a new table and on one an earlier version made', async () => {
    const toastPages = async (t: string) =>
      Number((await pgs.db.query<{ bytes: string }>(`SELECT pg_relation_size(reltoastrelid) AS bytes FROM pg_class WHERE oid = to_regclass($1)`, [`${t}_chunks`]))[0]?.bytes);
    const settings = async (t: string) =>
      (await pgs.db.query<{ storage: string; options: string[] | null }>(`SELECT a.attstorage AS storage, c.reloptions AS options FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'embedding' WHERE c.oid = to_regclass($1)`, [`${t}_chunks`]))[0];
    const fresh = await open('nv');
    expect(await settings('nv')).toEqual({ storage: 'm', options: ['toast_tuple_target=8160'] });
    await fresh.upsert('c', rows('a'), 'test:512', {});
    expect(await toastPages('nv')).toBe(0);
    // As an earlier version left a table: vectors stored EXTERNAL (pgvector's default), in TOAST.
    const old = await open('ov', false);
    await pgs.db.execute('ALTER TABLE ov_chunks RESET (toast_tuple_target), ALTER COLUMN embedding SET STORAGE EXTERNAL');
    await old.upsert('c', rows('a'), 'test:512', {});
    const before = await toastPages('ov');
    expect(before).toBeGreaterThan(0);
    const store = await open('ov');
    await store.hnswSettled();
    expect(await settings('ov')).toEqual({ storage: 'm', options: ['toast_tuple_target=8160'] });
    // New rows go in the row; the old ones stay readable where they are.
    await store.upsert('d', rows('b'), 'test:512', {});
    expect(await toastPages('ov')).toBe(before);
    const hits = await store.search({ searchType: 'vector', query: '', vector: rows('x')[3]!.embedding, limit: 2 });
    expect(hits.map((h) => h.chunk.id).sort()).toEqual(['a3', 'b3']);
  }, 60_000);

  it('adds for the GIN index a containment that selects exactly the rows the filter does, every operator, index used or not', async () => {
    await pgs.db.execute(`CREATE TABLE fc (id INT PRIMARY KEY, meta_data JSONB NOT NULL)`);
    // As JSON text, so that 7.0 and 7.50 stay as written.
    const metas = [
      '{"k": 7}', '{"k": 7.0}', '{"k": 7.50}', '{"k": "7"}', '{"k": true}', '{"k": false}', '{"k": null}', '{}', '{"k": [7]}', '{"k": [7, 8]}', '{"k": {"k": 7}}',
      '{"k": "kb1"}', '{"k": "KB1"}', '{"k": "kb1 "}', '{"k": "\u00e9"}', '{"k": "e\u0301"}', '{"k": 7, "j": "a"}', '{"k": 8, "j": "a"}', '{"j": "a"}', '{"k": -0}', '{"k": 1e21}', '{"k.x": 1}', '{"k": 0.0}',
    ];
    for (const [i, m] of metas.entries()) await pgs.db.execute('INSERT INTO fc (id, meta_data) VALUES ($1, $2::jsonb)', [i, m]);
    await pgs.db.execute('CREATE INDEX fc_meta ON fc USING GIN (meta_data jsonb_path_ops)');
    const filters: Filter[] = [
      eq(7), eq(7.0), eq(7.5), eq('7'), eq(true), eq(false), eq(null), eq('kb1'), eq('é'), eq(0), eq(1e21), eq(1, 'k.x'),
      { op: 'IN', key: 'k', values: [7, 'kb1', null] },
      { op: 'AND', conditions: [eq(7), eq('a', 'j')] },
      { op: 'AND', conditions: [eq(7), { op: 'NEQ', key: 'j', value: 'a' }] },
      { op: 'AND', conditions: [{ op: 'GT', key: 'k', value: 1 }, { op: 'OR', conditions: [eq('a', 'j'), eq(true)] }] },
      { op: 'OR', conditions: [eq(8), eq('kb1')] },
      { op: 'OR', conditions: [eq(8), { op: 'STARTSWITH', key: 'k', value: 'kb' }] },
      { op: 'AND', conditions: [{ op: 'OR', conditions: [eq(7), { op: 'LT', key: 'k', value: 0 }] }, eq('a', 'j')] },
      { op: 'NOT', condition: eq(7) },
      { op: 'NOT', condition: { op: 'AND', conditions: [eq(7), eq('a', 'j')] } },
    ];
    const ids = async (where: string, params: SqlValue[], indexed: boolean) =>
      pgs.db.transaction(async (tx) => {
        await tx.execute(`SET LOCAL enable_seqscan = ${indexed ? 'off' : 'on'}`);
        return (await tx.query<{ id: number }>(`SELECT id FROM fc WHERE ${where} ORDER BY id`, params)).map((r) => r.id);
      });
    let added = 0;
    const strayParams: unknown[] = [];
    for (const filter of filters) {
      const params: SqlValue[] = [];
      const plain = postgresFilter(filter, 'meta_data', params);
      const expected = await ids(plain, params, false);
      const withParams: SqlValue[] = [];
      const containment = postgresContainment(filter, 'meta_data', withParams);
      if (containment === undefined) {
        // Nothing implied, nothing added: not even a parameter (an unused one fails the query).
        strayParams.push(...withParams);
        continue;
      }
      added++;
      const both = `${containment} AND ${postgresFilter(filter, 'meta_data', withParams)}`;
      const label = JSON.stringify(filter);
      expect(await ids(both, withParams, false), label).toEqual(expected);
      expect(await ids(both, withParams, true), label).toEqual(expected);
      // The containment alone selects no fewer rows than the filter: it is implied by it.
      const alone: SqlValue[] = [];
      const only = await ids(postgresContainment(filter, 'meta_data', alone)!, alone, true);
      expect(expected.filter((id) => !only.includes(id)), label).toEqual([]);
    }
    // All but the two NOTs, the OR with a STARTSWITH: those imply no containment.
    expect(added).toBe(filters.length - 3);
    // Equalities alone (the single ones, the IN, the AND and the OR of them): the containment is
    // the whole test, and a search's WHERE is just it, index used or not.
    const equalities = filters.filter(containmentIsExact);
    expect(equalities).toHaveLength(15);
    for (const filter of equalities) {
      const params: SqlValue[] = [];
      const expected = await ids(postgresFilter(filter, 'meta_data', params), params, false);
      const where: SqlValue[] = [];
      const conditions = postgresConditions(filter, undefined, where);
      const label = JSON.stringify(filter);
      expect(conditions, label).not.toMatch(/COALESCE/);
      expect(await ids(`true${conditions}`, where, false), label).toEqual(expected);
      expect(await ids(`true${conditions}`, where, true), label).toEqual(expected);
    }
    expect(strayParams).toEqual([]);
    // Through a search: an OR with a range in it under an AND adds only what the AND implies.
    const params: SqlValue[] = [];
    const orWithRange: Filter = { op: 'AND', conditions: [{ op: 'OR', conditions: [eq(7), { op: 'LT', key: 'k', value: 0 }] }, eq('a', 'j')] };
    expect(postgresContainment(orWithRange, 'meta_data', params)).toBe('meta_data @> $1::jsonb');
    expect(params).toEqual(['{"j":"a"}']);
  });
});
