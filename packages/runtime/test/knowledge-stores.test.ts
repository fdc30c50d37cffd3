/**
 * One contract for every vector store: the same tests run on SQLite (sqlite-vec + FTS5) and
 * on PostgreSQL (pgvector + tsvector).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilters } from '../src/knowledge/vector-stores/filter-language.js';
import { RuntimeError } from '../src/errors.js';
import { PostgresVectorStore, type PostgresVectorStoreOptions } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore, type SqliteVectorStoreOptions } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { SearchRequest, StoredChunk, VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { postgresTestDatabase, type TestDatabase } from './support/databases.js';
import { hashEmbedding } from './support/fake-embeddings.js';

interface StoreUnderTest {
  open(table?: string): Promise<VectorStore>;
  /** Runs SQL on the store's own database, to shape tables as an older version left them. */
  exec(sql: string): Promise<void>;
  cleanup(): Promise<void>;
}

type StoreKind = { kind: string; available: boolean; setup(): Promise<StoreUnderTest> };

/** A SQLite store on a scratch file; `prepare` may adjust each store it opens. */
function sqliteKind(kind: string, options: Partial<SqliteVectorStoreOptions>, prepare?: (store: SqliteVectorStore) => Promise<void>): StoreKind {
  return {
    kind,
    available: true,
    async setup() {
      const dir = mkdtempSync(join(tmpdir(), 'svc-kstore-'));
      const stores: VectorStore[] = [];
      return {
        open: async (table) => {
          const store = new SqliteVectorStore({ path: join(dir, 'knowledge.db'), ...options, ...(table ? { table } : {}) });
          await store.create();
          await prepare?.(store);
          stores.push(store);
          return store;
        },
        exec: async (sql) => {
          const raw = new Database(join(dir, 'knowledge.db'));
          try {
            raw.exec(sql);
          } finally {
            raw.close();
          }
        },
        cleanup: async () => {
          for (const s of stores) await s.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** A PostgreSQL store in a scratch database. */
function postgresKind(kind: string, options: Partial<PostgresVectorStoreOptions>): StoreKind {
  return {
    kind,
    available: postgresTestDatabase.available,
    async setup() {
      const database: TestDatabase = await postgresTestDatabase.create();
      const db: Db = database.open();
      return {
        open: async (table) => {
          const store = new PostgresVectorStore({ db, ...options, ...(table ? { table } : {}) });
          await store.create();
          if (options.hnsw !== false) {
            // The index is built in the background; the contract is checked through it.
            await store.hnswSettled();
            const upsert = store.upsert.bind(store);
            store.upsert = async (...args) => {
              await upsert(...args);
              await store.hnswSettled();
            };
          }
          return store;
        },
        exec: async (sql) => {
          await db.execute(sql);
        },
        cleanup: async () => {
          await db.close();
          await database.cleanup();
        },
      };
    },
  };
}

const kinds: StoreKind[] = [
  sqliteKind('sqlite', {}),
  // The same contract through the binary-quantized candidate index (exact fallback under filters).
  sqliteKind('sqlite with quantized candidates', { quantizedCandidates: { min: 2, perResult: 2 } }),
  // The same contract through the IVF index: trained (inline, 2 lists, 1 probe) as soon as the
  // store holds 2 chunks, and each write waits for the training it started, so the searches
  // after it go through the lists (exact fallback under filters or too few rows).
  sqliteKind('sqlite with ivf', { ivf: { lists: 2, probes: 1, trainAt: 2 }, offload: 'inline' }, async (store) => {
    await store.ivfSettled();
    const upsert = store.upsert.bind(store);
    store.upsert = async (...args) => {
      await upsert(...args);
      await store.ivfSettled();
    };
  }),
  postgresKind('postgres', { hnsw: false }),
  // The same contract through pgvector's HNSW index (approximate, exact fallback under filters).
  postgresKind('postgres with HNSW', { hnsw: { m: 8, efConstruction: 32, efSearch: 40 } }),
];

const TEXTS: [string, string, Record<string, unknown>][] = [
  ['a1', 'PostgreSQL stores vectors with the pgvector extension', { topic: 'db', year: 2024, public: true }],
  ['a2', 'SQLite is an embedded database in a single file', { topic: 'db', year: 2023, public: false }],
  ['a3', 'Cats sleep most of the day and purr when happy', { topic: 'pets', year: 2024, public: true }],
  ['a4', 'Dogs enjoy long walks and playing fetch in the park', { topic: 'pets', year: '2024', public: true }],
];

function chunks(contentId: string, withVectors = true): StoredChunk[] {
  return TEXTS.filter(([id]) => id.startsWith(contentId.slice(0, 1))).map(([id, content, filters]) => ({
    id,
    name: `doc-${id}`,
    content,
    meta_data: { ...filters, chunk: 1 },
    filters,
    ...(withVectors ? { embedding: hashEmbedding(content) } : {}),
  }));
}

for (const kind of kinds) {
  describe.runIf(kind.available)(`vector store contract: ${kind.kind}`, () => {
    let sut: StoreUnderTest;
    let store: VectorStore;
    beforeAll(async () => {
      sut = await kind.setup();
      store = await sut.open();
      await store.upsert('a', chunks('a'), 'fake:hash');
    });
    afterAll(() => sut.cleanup());

    it('finds the nearest chunk by vector, with similarity in [0, 1]', async () => {
      const hits = await store.search({ searchType: 'vector', query: '', vector: hashEmbedding('pgvector extension for PostgreSQL vectors'), limit: 2 });
      expect(hits).toHaveLength(2);
      expect(hits[0]?.chunk).toMatchObject({ id: 'a1', content_id: 'a', name: 'doc-a1', meta_data: { topic: 'db', chunk: 1 } });
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(hits[0]!.score).toBeLessThanOrEqual(1);
    });

    it('finds chunks by keyword, ranking the best match first and ignoring query syntax', async () => {
      const hits = await store.search({ searchType: 'keyword', query: 'walks "park" (dogs) OR', limit: 5 });
      expect(hits[0]?.chunk.id).toBe('a4');
      expect(hits.every((h) => h.score > 0 && h.score < 1)).toBe(true);
      expect(await store.search({ searchType: 'keyword', query: '?!', limit: 5 })).toEqual([]);
      expect(await store.search({ searchType: 'keyword', query: 'zebra', limit: 5 })).toEqual([]);
    });

    it('fuses both in hybrid search', async () => {
      const hits = await store.search({ searchType: 'hybrid', query: 'embedded database file', vector: hashEmbedding('embedded database file'), limit: 3 });
      expect(hits[0]?.chunk.id).toBe('a2');
      expect(hits.length).toBeLessThanOrEqual(3);
    });

    it('filters by metadata with exact types, in every search type', async () => {
      const vector = hashEmbedding('database');
      const ids = async (searchType: 'vector' | 'keyword' | 'hybrid', filters: Record<string, string | number | boolean | null>, query = 'database cats dogs walks') =>
        (await store.search({ searchType, query, vector, limit: 10, filters })).map((h) => h.chunk.id).sort();
      expect(await ids('vector', { topic: 'pets' })).toEqual(['a3', 'a4']);
      expect(await ids('vector', { year: 2024 })).toEqual(['a1', 'a3']);
      expect(await ids('vector', { year: '2024' })).toEqual(['a4']);
      expect(await ids('vector', { topic: 'db', public: false })).toEqual(['a2']);
      expect(await ids('keyword', { topic: 'pets' })).toEqual(['a3', 'a4']);
      expect(await ids('hybrid', { public: true, topic: 'pets' })).toEqual(['a3', 'a4']);
      expect(await ids('vector', { missing: null })).toEqual([]);
    });

    it('compiles the whole filter language the same on both stores, type-exact, missing keys never matching', async () => {
      const vector = hashEmbedding('database');
      const ids = async (filter: unknown[], searchType: 'vector' | 'keyword' = 'vector') =>
        (await store.search({ searchType, query: 'database cats dogs walks stores file', vector, limit: 10, filter: parseFilters(filter) })).map((h) => h.chunk.id).sort();
      expect(await ids([{ op: 'EQ', key: 'year', value: 2024 }])).toEqual(['a1', 'a3']);
      expect(await ids([{ op: 'NEQ', key: 'year', value: 2024 }])).toEqual(['a2', 'a4']);
      expect(await ids([{ op: 'GT', key: 'year', value: 2023 }])).toEqual(['a1', 'a3']);
      expect(await ids([{ op: 'GTE', key: 'year', value: 2023 }])).toEqual(['a1', 'a2', 'a3']);
      expect(await ids([{ op: 'LT', key: 'year', value: 2024 }])).toEqual(['a2']);
      expect(await ids([{ op: 'LTE', key: 'year', value: 2024 }])).toEqual(['a1', 'a2', 'a3']);
      // A string compares with strings only: '2024' (a4) is not a number.
      expect(await ids([{ op: 'GTE', key: 'year', value: '2024' }])).toEqual(['a4']);
      expect(await ids([{ op: 'IN', key: 'topic', values: ['pets', 'nope'] }])).toEqual(['a3', 'a4']);
      expect(await ids([{ op: 'IN', key: 'year', values: [2023, '2024'] }])).toEqual(['a2', 'a4']);
      expect(await ids([{ op: 'CONTAINS', key: 'topic', value: 'ET' }])).toEqual(['a3', 'a4']);
      expect(await ids([{ op: 'STARTSWITH', key: 'topic', value: 'd' }])).toEqual(['a1', 'a2']);
      expect(await ids([{ op: 'OR', conditions: [{ op: 'EQ', key: 'topic', value: 'db' }, { op: 'EQ', key: 'public', value: false }] }])).toEqual(['a1', 'a2']);
      expect(await ids([{ op: 'NOT', condition: { op: 'EQ', key: 'topic', value: 'pets' } }])).toEqual(['a1', 'a2']);
      // A key no chunk has is false, so its negation holds everywhere (never NULL).
      expect(await ids([{ op: 'NOT', condition: { op: 'EQ', key: 'absent', value: 1 } }])).toEqual(['a1', 'a2', 'a3', 'a4']);
      expect(await ids([{ op: 'GT', key: 'absent', value: 1 }])).toEqual([]);
      // Several expressions all hold; the same filter on the keyword side.
      expect(await ids([{ op: 'EQ', key: 'public', value: true }, { op: 'LT', key: 'year', value: 2025 }])).toEqual(['a1', 'a3']);
      expect(await ids([{ op: 'AND', conditions: [{ op: 'EQ', key: 'topic', value: 'pets' }, { op: 'NOT', condition: { op: 'EQ', key: 'year', value: '2024' } }] }], 'keyword')).toEqual(['a3']);
    });

    it('returns exactly `limit` hits whenever that many match, in every search type, filtered or not', async () => {
      const vector = hashEmbedding('database');
      // Keyword: all four chunks match one of the words. Hybrid: the keyword side matches only
      // a1 ("pgvector"), and the page is still filled from the vector side.
      const queries = { vector: 'pgvector', keyword: 'stores sqlite cats dogs', hybrid: 'pgvector' } as const;
      for (const searchType of ['vector', 'keyword', 'hybrid'] as const) {
        for (const limit of [1, 2, 3]) {
          expect((await store.search({ searchType, query: queries[searchType], vector, limit })).length, `${searchType} ${limit}`).toBe(limit);
        }
        const filter = parseFilters([{ op: 'EQ', key: 'public', value: true }]);
        // Three chunks are public; a larger limit gets exactly those.
        expect((await store.search({ searchType, query: queries[searchType], vector, limit: 10, filter })).length, `${searchType} filtered`).toBe(3);
      }
    });

    it('keeps exactly `limit` filtered keyword hits when dozens of better matches are filtered out', async () => {
      // 60 chunks repeat the word and rank first; the 5 that pass the filter say it once.
      const deep = await sut.open('kstore_deep');
      const noise = Array.from({ length: 60 }, (_, i) => ({ id: `n${i}`, content: `database database database note ${i}`, meta_data: { group: 'noise' }, filters: { group: 'noise' }, embedding: hashEmbedding(`noise ${i}`) }));
      const targets = Array.from({ length: 5 }, (_, i) => ({ id: `t${i}`, content: `a database mentioned once in a much longer passage about other things ${i}`, meta_data: { group: 'target' }, filters: { group: 'target' }, embedding: hashEmbedding(`target ${i}`) }));
      await deep.upsert('noise', noise, 'fake:hash');
      await deep.upsert('targets', targets, 'fake:hash');
      const top = await deep.search({ searchType: 'keyword', query: 'database', limit: 3 });
      expect(top.map((h) => h.chunk.meta_data.group)).toEqual(['noise', 'noise', 'noise']);
      const filtered = await deep.search({ searchType: 'keyword', query: 'database', limit: 5, filter: parseFilters({ group: 'target' }) });
      expect(filtered.map((h) => h.chunk.id).sort()).toEqual(['t0', 't1', 't2', 't3', 't4']);
      const scoped = await deep.search({ searchType: 'keyword', query: 'database', limit: 4, filter: parseFilters({ group: 'target' }) });
      expect(scoped).toHaveLength(4);
    });

    it('refuses malformed filters with BAD_REQUEST', async () => {
      const error = await store.search({ searchType: 'keyword', query: 'x', limit: 1, filters: { 'bad key"': 1 } }).catch((e: unknown) => e);
      expect(RuntimeError.isInstance(error) && error.code).toBe('BAD_REQUEST');
    });

    it('lists the user metadata keys as filter keys', async () => {
      expect(await store.filterKeys()).toEqual(['public', 'topic', 'year']);
    });

    it('upsert replaces a content’s chunks; delete removes them', async () => {
      const other = await sut.open('kstore_replace');
      await other.upsert('x', chunks('a'), 'fake:hash');
      await other.upsert('x', [{ id: 'only', content: 'replacement text about turtles', meta_data: {}, filters: {}, embedding: hashEmbedding('turtles') }], 'fake:hash');
      expect((await other.search({ searchType: 'keyword', query: 'dogs turtles', limit: 10 })).map((h) => h.chunk.id)).toEqual(['only']);
      expect(await other.contentExists('x')).toBe(true);
      expect(await other.deleteByContentId('x')).toBe(1);
      expect(await other.contentExists('x')).toBe(false);
      expect(await other.search({ searchType: 'keyword', query: 'turtles', limit: 10 })).toEqual([]);
    });

    it('stores chunks without vectors for keyword-only knowledge', async () => {
      const plain = await sut.open('kstore_plain');
      await plain.upsert('p', chunks('a', false));
      expect((await plain.search({ searchType: 'keyword', query: 'purr', limit: 3 }))[0]?.chunk.id).toBe('a3');
      expect(await plain.search({ searchType: 'vector', query: '', vector: hashEmbedding('purr'), limit: 3 })).toEqual([]);
    });

    it('refuses vectors from another embedder or of another length with CONFLICT', async () => {
      const error = await store.upsert('b', [{ id: 'b1', content: 'x', meta_data: {}, filters: {}, embedding: [1, 0, 0] }], 'fake:hash').catch((e: unknown) => e);
      expect(RuntimeError.isInstance(error) && error.code).toBe('CONFLICT');
      const other = await store.upsert('b', [{ id: 'b1', content: 'x', meta_data: {}, filters: {}, embedding: hashEmbedding('x') }], 'other:model').catch((e: unknown) => e);
      expect(RuntimeError.isInstance(other) && other.code).toBe('CONFLICT');
      expect(await store.contentExists('b')).toBe(false);
    });

    describe('owners', () => {
      // Every chunk says "database", so a keyword search for it matches all eight; bob's say it
      // most and are nearest the query vector, so a scope applied after a top-k would starve.
      const owned: [string, string, string, Record<string, unknown>][] = [
        ['s', 's1', 'Shared handbook: database backups and restores', { team: 'all' }],
        ['s', 's2', 'Shared guide: a database for vector search', { team: 'all' }],
        ['al', 'al1', 'Alice notes the database migration plan', { project: 'apollo' }],
        ['al', 'al2', 'Alice lists database indexes to add', { project: 'apollo' }],
        ['al', 'al3', 'Alice keeps database credentials rotation steps', { project: 'apollo' }],
        ['bo', 'bo1', 'Bob database database database tuning', { secret: 'bob' }],
        ['bo', 'bo2', 'Bob database database replication', { secret: 'bob' }],
        ['bo', 'bo3', 'Bob database database sharding', { secret: 'bob' }],
      ];
      const owners: Record<string, string | undefined> = { s: undefined, al: 'alice', bo: 'bob' };
      const visible = { alice: ['al1', 'al2', 'al3', 's1', 's2'], bob: ['bo1', 'bo2', 'bo3', 's1', 's2'] };
      const vector = hashEmbedding('Bob database database database tuning');
      let scoped: VectorStore;

      beforeAll(async () => {
        scoped = await sut.open('kstore_owners');
        for (const content of ['s', 'al', 'bo']) {
          const rows = owned
            .filter(([c]) => c === content)
            .map(([, id, text, filters]) => ({ id, content: text, meta_data: { ...filters }, filters, embedding: hashEmbedding(text) }));
          await scoped.upsert(content, rows, 'fake:hash', { knowledgeId: 'kb', userId: owners[content] });
        }
      });

      const ids = async (request: Omit<SearchRequest, 'vector' | 'query'> & { query?: string }) =>
        (await scoped.search({ query: 'database', vector, ...request })).map((h) => h.chunk.id).sort();

      it('a user finds shared chunks and their own, never another user’s, in every search type', async () => {
        for (const searchType of ['vector', 'keyword', 'hybrid'] as const) {
          expect(await ids({ searchType, limit: 10, visibleTo: 'alice' }), searchType).toEqual(visible.alice);
          expect(await ids({ searchType, limit: 10, visibleTo: 'bob' }), searchType).toEqual(visible.bob);
          expect(await ids({ searchType, limit: 10, visibleTo: 'carol' }), searchType).toEqual(['s1', 's2']);
          expect((await ids({ searchType, limit: 10 })).length, searchType).toBe(8);
        }
      });

      it('returns exactly `limit` hits whenever that many are visible, though another user’s rank first', async () => {
        for (const searchType of ['vector', 'keyword', 'hybrid'] as const) {
          // Unscoped, bob's chunks lead: a scope applied to those top hits would leave nothing.
          expect((await ids({ searchType, limit: 3 })).every((id) => id.startsWith('bo')), searchType).toBe(true);
          for (const limit of [1, 3, 5]) {
            const hits = await ids({ searchType, limit, visibleTo: 'alice' });
            expect(hits.length, `${searchType} ${limit}`).toBe(limit);
            expect(hits.every((id) => visible.alice.includes(id)), `${searchType} ${limit}`).toBe(true);
          }
        }
      });

      it('applies the scope together with the filters', async () => {
        const apollo = parseFilters([{ op: 'EQ', key: 'project', value: 'apollo' }]);
        expect(await ids({ searchType: 'vector', limit: 10, filter: apollo, visibleTo: 'alice' })).toEqual(['al1', 'al2', 'al3']);
        expect(await ids({ searchType: 'keyword', limit: 10, filter: apollo, visibleTo: 'bob' })).toEqual([]);
        // An OR cannot widen the scope: it is its own conjunct.
        const either = parseFilters([{ op: 'OR', conditions: [{ op: 'EQ', key: 'secret', value: 'bob' }, { op: 'EQ', key: 'team', value: 'all' }] }]);
        expect(await ids({ searchType: 'hybrid', limit: 10, filter: either, visibleTo: 'alice' })).toEqual(['s1', 's2']);
        expect(await ids({ searchType: 'vector', limit: 10, filters: { secret: 'bob' }, visibleTo: 'alice' })).toEqual([]);
      });

      it('lists only the keys of chunks the user may see', async () => {
        expect(await scoped.filterKeys('alice')).toEqual(['project', 'team']);
        expect(await scoped.filterKeys('bob')).toEqual(['secret', 'team']);
        expect(await scoped.filterKeys()).toEqual(['project', 'secret', 'team']);
        expect(await scoped.metadataKeys('alice')).not.toContain('secret');
      });

      it('deletes for a user only the chunks that user owns', async () => {
        expect(await scoped.deleteByContentId('bo', { ownedBy: 'alice' })).toBe(0);
        expect(await scoped.deleteByContentId('s', { ownedBy: 'alice' })).toBe(0);
        expect(await ids({ searchType: 'keyword', limit: 10, visibleTo: 'bob' })).toEqual(visible.bob);
        expect(await scoped.deleteByContentId('al', { ownedBy: 'alice' })).toBe(3);
        expect(await ids({ searchType: 'keyword', limit: 10, visibleTo: 'alice' })).toEqual(['s1', 's2']);
        expect(await ids({ searchType: 'vector', limit: 10, visibleTo: 'alice' })).toEqual(['s1', 's2']);
        expect(await scoped.contentExists('al')).toBe(false);
        expect(await scoped.contentExists('bo')).toBe(true);
      });

      it('a table made before chunks had owners gets the columns, its chunks shared', async () => {
        const legacy = await sut.open('kstore_legacy');
        await legacy.upsert('old', chunks('a'), 'fake:hash');
        await sut.exec('ALTER TABLE kstore_legacy_chunks DROP COLUMN user_id');
        await sut.exec('ALTER TABLE kstore_legacy_chunks DROP COLUMN knowledge_id');
        const reopened = await sut.open('kstore_legacy');
        expect((await reopened.search({ searchType: 'keyword', query: 'database pgvector', limit: 10, visibleTo: 'alice' })).map((h) => h.chunk.id).sort()).toEqual(['a1', 'a2']);
        await reopened.upsert('mine', [{ id: 'm1', content: 'my private database', meta_data: {}, filters: {}, embedding: hashEmbedding('m') }], 'fake:hash', { userId: 'alice' });
        expect((await reopened.search({ searchType: 'keyword', query: 'database pgvector', limit: 10, visibleTo: 'bob' })).map((h) => h.chunk.id).sort()).toEqual(['a1', 'a2']);
        expect((await reopened.search({ searchType: 'keyword', query: 'private', limit: 10, visibleTo: 'alice' })).map((h) => h.chunk.id)).toEqual(['m1']);
      });
    });

    it('create() is idempotent', async () => {
      await store.create();
      expect(await store.contentExists('a')).toBe(true);
    });
  });
}
