/**
 * The tenant scope of chunk rows on every store and search path (issue 25, point 1 of the second
 * pass): SQLite (plain, quantized candidates, IVF lists) and PostgreSQL (exact, and through the
 * HNSW index, where the tenant is one more narrowing predicate of the iterative scan). The same
 * user id (alice) in two tenants finds only its tenant's chunks (its own and the tenant's shared
 * ones) with keyword, vector and hybrid search, with or without a metadata filter, and `limit`
 * is exact: full pages of visible chunks. Rows of no tenant are found only unscoped. The filter
 * keys listed for a scope are those of the chunks it may see.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkScope } from '../src/knowledge/vector-stores/chunk-scope.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { SearchType, StoredChunk, VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { seededRandom } from '../src/util/seeded-random.js';
import { postgresTestDatabase, type TestDatabase } from './support/databases.js';

const DIMS = 16;
const PER_CONTENT = 30;

/** Content id -> who it belongs to. */
const CONTENTS: Record<string, { userId?: string; tenantId?: string; key: string }> = {
  'a-alice': { userId: 'alice', tenantId: 'A', key: 'only_a_alice' },
  'a-bob': { userId: 'bob', tenantId: 'A', key: 'only_a_bob' },
  'a-shared': { tenantId: 'A', key: 'only_a_shared' },
  'b-alice': { userId: 'alice', tenantId: 'B', key: 'only_b_alice' },
  'b-shared': { tenantId: 'B', key: 'only_b_shared' },
  legacy: { key: 'only_legacy' },
};

async function fill(store: VectorStore): Promise<void> {
  const next = seededRandom(7);
  for (const [contentId, owner] of Object.entries(CONTENTS)) {
    const chunks: StoredChunk[] = Array.from({ length: PER_CONTENT }, (_, i) => {
      const v = Array.from({ length: DIMS }, () => next() * 2 - 1);
      const n = Math.hypot(...v);
      const meta = { half: i % 2, [owner.key]: true };
      return { id: String(i + 1), content: `kettle note ${i} of ${contentId}`, meta_data: meta, filters: meta, embedding: v.map((x) => x / n) };
    });
    await store.upsert(contentId, chunks, 'test:random', { knowledgeId: 'kb', userId: owner.userId, tenantId: owner.tenantId });
  }
}

const query = (): number[] => {
  const next = seededRandom(99);
  const v = Array.from({ length: DIMS }, () => next() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/** What each scope may see, by content. */
const VISIBLE: [string, ChunkScope, string[]][] = [
  ['tenant A', { tenant: 'A' }, ['a-alice', 'a-bob', 'a-shared']],
  ['alice of A', { user: 'alice', tenant: 'A' }, ['a-alice', 'a-shared']],
  ['alice of B', { user: 'alice', tenant: 'B' }, ['b-alice', 'b-shared']],
  ['tenant B', { tenant: 'B' }, ['b-alice', 'b-shared']],
];

function contract(name: string, make: () => Promise<VectorStore>): void {
  describe(`the ${name} store`, () => {
    let store: VectorStore;
    beforeAll(async () => {
      store = await make();
    });

    for (const searchType of ['keyword', 'vector', 'hybrid'] as SearchType[]) {
      for (const [who, scope, visible] of VISIBLE) {
        it(`${searchType}: ${String(who)} finds only its chunks, and exactly limit of them`, async () => {
          const all = await store.search({ searchType, query: 'kettle', vector: query(), limit: 1000, visibleTo: scope });
          expect(new Set(all.map((h) => h.chunk.content_id))).toEqual(new Set(visible));
          expect(all).toHaveLength(visible.length * PER_CONTENT);
          const page = await store.search({ searchType, query: 'kettle', vector: query(), limit: 25, visibleTo: scope });
          expect(page).toHaveLength(25);
          for (const h of page) expect(visible).toContain(h.chunk.content_id);
          // With a filter in the same WHERE: half of each visible content's chunks.
          const filtered = await store.search({ searchType, query: 'kettle', vector: query(), limit: 1000, filters: { half: 1 }, visibleTo: scope });
          expect(filtered).toHaveLength((visible.length * PER_CONTENT) / 2);
          for (const h of filtered) expect(visible).toContain(h.chunk.content_id);
        });
      }
    }

    it('unscoped finds every tenant’s and the rows of no tenant; a user id alone is the user scope of before', async () => {
      const all = await store.search({ searchType: 'keyword', query: 'kettle', limit: 1000 });
      expect(new Set(all.map((h) => h.chunk.content_id))).toEqual(new Set(Object.keys(CONTENTS)));
      const alice = await store.search({ searchType: 'keyword', query: 'kettle', limit: 1000, visibleTo: 'alice' });
      expect(new Set(alice.map((h) => h.chunk.content_id))).toEqual(new Set(['a-alice', 'a-shared', 'b-alice', 'b-shared', 'legacy']));
    });

    it("lists the filter keys of the chunks a scope may see, never another tenant's", async () => {
      const keys = await store.filterKeys({ user: 'alice', tenant: 'A' });
      expect(keys).toEqual(['half', 'only_a_alice', 'only_a_shared']);
      expect(await store.metadataKeys({ tenant: 'B' })).toEqual(['half', 'only_b_alice', 'only_b_shared']);
    });
  });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-kts-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const opened: VectorStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

async function sqlite(file: string, options: Partial<ConstructorParameters<typeof SqliteVectorStore>[0]> = {}): Promise<VectorStore> {
  const store = new SqliteVectorStore({ path: join(dir, file), ...options });
  opened.push(store);
  await store.create();
  await fill(store);
  return store;
}

describe('SQLite chunk rows', () => {
  contract('plain', () => sqlite('plain.db', { ivf: false }));
  contract('quantized candidates', () => sqlite('bits.db', { ivf: false, quantizedCandidates: {} }));
  contract('IVF lists', () => sqlite('ivf.db', { ivf: { lists: 4, probes: 4, trainAt: 60 } }));
});

describe.runIf(postgresTestDatabase.available)('PostgreSQL chunk rows', () => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await postgresTestDatabase.create();
    db = database.open();
  });
  afterAll(async () => {
    for (const s of opened.splice(0)) await s.close();
    await db?.close();
    await database?.cleanup();
  });

  contract('exact', async () => {
    const store = new PostgresVectorStore({ db, table: 'exact', hnsw: false });
    opened.push(store);
    await store.create();
    await fill(store);
    return store;
  });
  contract('through the HNSW index', async () => {
    const filler = new PostgresVectorStore({ db, table: 'hnsw', hnsw: {} });
    opened.push(filler);
    await filler.create();
    await fill(filler);
    // A store opened on the filled table builds its index; narrowed searches walk it iteratively.
    const store = new PostgresVectorStore({ db, table: 'hnsw', hnsw: { efSearch: 10, filteredEfSearch: 10 } });
    opened.push(store);
    await store.create();
    await store.hnswSettled();
    if (!store.hnswIndex) throw new Error('the HNSW index was not built');
    return store;
  });
});
