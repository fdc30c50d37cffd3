/**
 * The reindex contract of the vector stores, on SQLite and PostgreSQL: new vectors are staged
 * beside the searched ones and swapped in at once; writes made meanwhile are neither lost nor
 * mixed in; a stale vector (its chunk's text changed after it was embedded) is never staged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../src/errors.js';
import { OpenAIEmbedder } from '../src/providers/openai/embeddings.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import type { ReindexableStore } from '../src/knowledge/vector-stores/reindex.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { StoredChunk, VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import type { Db } from '../src/storage/db.js';
import { postgresTestDatabase, type TestDatabase } from './support/databases.js';
import { hashEmbedding, startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';

type Store = VectorStore & ReindexableStore;

const kinds: { kind: string; available: boolean; setup(): Promise<{ open(table: string): Promise<Store>; cleanup(): Promise<void> }> }[] = [
  {
    kind: 'sqlite',
    available: true,
    async setup() {
      const dir = mkdtempSync(join(tmpdir(), 'svc-kreindex-'));
      const stores: Store[] = [];
      return {
        open: async (table) => {
          const store = new SqliteVectorStore({ path: join(dir, 'knowledge.db'), table });
          await store.create();
          stores.push(store);
          return store;
        },
        cleanup: async () => {
          for (const s of stores) await s.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    kind: 'postgres',
    available: postgresTestDatabase.available,
    async setup() {
      const database: TestDatabase = await postgresTestDatabase.create();
      const db: Db = database.open();
      return {
        open: async (table) => {
          const store = new PostgresVectorStore({ db, table });
          await store.create();
          return store;
        },
        cleanup: async () => {
          await db.close();
          await database.cleanup();
        },
      };
    },
  },
];

const TEXTS = ['Otters hold hands while they sleep', 'Pgvector adds vector search to PostgreSQL', 'Sourdough needs a lively starter'];

function chunks(texts: readonly string[], dimensions: number | undefined): StoredChunk[] {
  return texts.map((content, i) => ({
    id: `c${i}`,
    content,
    meta_data: {},
    filters: {},
    ...(dimensions ? { embedding: hashEmbedding(content, dimensions) } : {}),
  }));
}

const vectorTop = async (store: Store, query: string, dimensions: number) =>
  (await store.search({ searchType: 'vector', query, vector: hashEmbedding(query, dimensions), limit: 10 })).map((h) => `${h.chunk.content_id}/${h.chunk.id}`);

/** Stages the new embedder's vectors for every pending chunk, as the job does. */
async function stageAll(store: Store, dimensions: number): Promise<number> {
  const pending = await store.pendingChunks(1000);
  return store.stageVectors(pending.map((c) => ({ ...c, embedding: hashEmbedding(c.content, dimensions) })));
}

for (const kind of kinds) {
  describe.runIf(kind.available)(`vector store reindex: ${kind.kind}`, () => {
    let sut: Awaited<ReturnType<(typeof kinds)[number]['setup']>>;
    let fake: FakeEmbeddings;
    beforeAll(async () => {
      sut = await kind.setup();
      fake = await startFakeEmbeddings();
    });
    afterAll(async () => {
      await sut.cleanup();
      await fake.close();
    });

    it("a Knowledge whose embedder is not the store's searches by keyword until the swap, then by vector", async () => {
      const store = await sut.open('r_gate');
      const embedder = (model: string, dimensions: number) => new OpenAIEmbedder({ baseURL: `${fake.url}/v1`, model, dimensions, env: {} });
      const before = new Knowledge({ id: 'k', store, embedder: embedder('old-model', 64) });
      for (const text of TEXTS) await before.insert({ text, name: text.slice(0, 8) });
      const after = new Knowledge({ id: 'k', store, embedder: embedder('new-model', 16) });
      await store.beginReindex(after.embedder!.id);
      fake.reset();
      const hybrid = await after.search('sourdough starter', { searchType: 'hybrid' });
      const keyword = await after.search('sourdough starter', { searchType: 'keyword' });
      expect(hybrid).toEqual(keyword);
      expect(hybrid[0]?.content).toBe(TEXTS[2]);
      // The query was not embedded: its vector could not be compared with the stored ones.
      expect(fake.requests).toHaveLength(0);
      // The old embedder's Knowledge still searches by vector meanwhile.
      await before.search('otters', { searchType: 'vector' });
      expect(fake.requests).toHaveLength(1);
      await stageAll(store, 16);
      expect(await store.finishReindex(after.embedder!.id)).toBe(true);
      await new Promise((r) => setTimeout(r, 1100));
      fake.reset();
      const vector = await after.search('otters hold hands', { searchType: 'vector', limit: 1 });
      expect(vector[0]?.content).toBe(TEXTS[0]);
      expect(fake.requests).toHaveLength(1);
    });

    it('records the embedder and dimension with the first vectors, and reports them', async () => {
      const store = await sut.open('r_record');
      expect(await store.embedderState()).toEqual({ embedder: undefined, reindexTarget: undefined, lastReindex: undefined });
      await store.upsert('doc', chunks(TEXTS, 64), 'openai:old');
      expect((await store.embedderState()).embedder).toEqual({ id: 'openai:old', dimensions: 64 });
      await expect(store.upsert('doc2', chunks(TEXTS, 64), 'openai:new')).rejects.toSatisfy((e) => RuntimeError.isInstance(e) && e.code === 'CONFLICT');
    });

    it('stages new vectors beside the searched ones and swaps them in at once, changing the dimension', async () => {
      const store = await sut.open('r_swap');
      await store.upsert('doc', chunks(TEXTS, 64), 'openai:old');
      await store.beginReindex('openai:new:16');
      expect(await store.reindexCounts()).toEqual({ done: 0, total: 3 });
      const first = await store.pendingChunks(2);
      expect(first.map((c) => c.chunk_id)).toEqual(['c0', 'c1']);
      expect(await store.stageVectors(first.map((c) => ({ ...c, embedding: hashEmbedding(c.content, 16) })))).toBe(2);
      expect(await store.reindexCounts()).toEqual({ done: 2, total: 3 });
      // Not done: nothing switches, and search still uses the old vectors only.
      expect(await store.finishReindex('openai:new:16')).toBe(false);
      expect((await vectorTop(store, 'otters sleep', 64))[0]).toBe('doc/c0');
      expect((await store.pendingChunks(10)).map((c) => c.chunk_id)).toEqual(['c2']);
      await stageAll(store, 16);
      expect(await store.finishReindex('openai:other')).toBe(false);
      expect(await store.finishReindex('openai:new:16')).toBe(true);
      const state = await store.embedderState();
      expect(state).toMatchObject({ embedder: { id: 'openai:new:16', dimensions: 16 }, reindexTarget: undefined, lastReindex: { embedder: 'openai:new:16', dimensions: 16, chunks: 3 } });
      expect((await vectorTop(store, 'sourdough starter', 16))[0]).toBe('doc/c2');
      expect(await store.reindexCounts()).toEqual({ done: 0, total: 3 });
      // New uploads now need the new embedder.
      await store.upsert('more', chunks(['Tides follow the moon'], 16), 'openai:new:16');
      await expect(store.upsert('old', chunks(['x'], 64), 'openai:old')).rejects.toThrow(/openai:new:16/);
    });

    it('stages uploads made with the target meanwhile, re-embeds replaced content, and forgets deleted content', async () => {
      const store = await sut.open('r_writes');
      await store.upsert('keep', chunks(TEXTS, 64), 'openai:old');
      await store.upsert('gone', chunks(['Deleted before the swap'], 64), 'openai:old');
      await store.beginReindex('openai:new:16');
      const pending = await store.pendingChunks(100);
      // Replaced after its text was read for embedding: the stale vector must not be staged.
      await store.upsert('keep', chunks(['Otters changed their mind', ...TEXTS.slice(1)], 64), 'openai:old');
      const staged = await store.stageVectors(pending.map((c) => ({ ...c, embedding: hashEmbedding(c.content, 16) })));
      expect(staged).toBe(3);
      expect((await store.pendingChunks(10)).map((c) => c.content)).toEqual(['Otters changed their mind']);
      // An upload with the target embedder is staged, invisible to vector search until the swap.
      await store.upsert('fresh', chunks(['Lighthouses guide ships at night'], 16), 'openai:new:16');
      expect(await vectorTop(store, 'lighthouses ships', 64)).not.toContain('fresh/c0');
      expect(await store.search({ searchType: 'keyword', query: 'lighthouses', limit: 5 })).toHaveLength(1);
      expect(await store.deleteByContentId('gone')).toBe(1);
      expect(await store.reindexCounts()).toEqual({ done: 3, total: 4 });
      await stageAll(store, 16);
      expect(await store.finishReindex('openai:new:16')).toBe(true);
      const top = await vectorTop(store, 'otters changed their mind', 16);
      expect(top[0]).toBe('keep/c0');
      expect(await vectorTop(store, 'lighthouses guide ships', 16)).toContain('fresh/c0');
      expect(top).toHaveLength(4);
    });

    it('uploads racing the swap end with a vector each, none left staged', async () => {
      const store = await sut.open('r_race');
      await store.upsert('doc', chunks(TEXTS, 64), 'openai:old');
      await store.beginReindex('openai:new:16');
      await stageAll(store, 16);
      const uploads = Array.from({ length: 12 }, (_, i) => store.upsert(`up${i}`, chunks([`Upload ${i} about tides`, `More ${i} on moons`], 16), 'openai:new:16'));
      const [finished] = await Promise.all([store.finishReindex('openai:new:16'), ...uploads]);
      // Each upload either committed before the swap (staged, then swapped in) or after it (stored as searched).
      expect(finished).toBe(true);
      expect((await store.embedderState()).embedder).toEqual({ id: 'openai:new:16', dimensions: 16 });
      const hits = await store.search({ searchType: 'vector', query: '', vector: hashEmbedding('Upload 7 about tides', 16), limit: 100 });
      expect(hits).toHaveLength(27);
      expect(hits[0]?.chunk.content).toBe('Upload 7 about tides');
      expect(await store.reindexCounts()).toEqual({ done: 0, total: 27 });
    });

    it('a reindex to another target drops what the first one staged; the same target keeps it', async () => {
      const store = await sut.open('r_retarget');
      await store.upsert('doc', chunks(TEXTS, 64), 'openai:old');
      await store.beginReindex('openai:a');
      await stageAll(store, 8);
      await store.beginReindex('openai:a');
      expect(await store.reindexCounts()).toEqual({ done: 3, total: 3 });
      await store.beginReindex('openai:b');
      expect(await store.reindexCounts()).toEqual({ done: 0, total: 3 });
      expect(await store.finishReindex('openai:a')).toBe(false);
      expect((await store.embedderState()).reindexTarget).toBe('openai:b');
    });

    it('gives vectors to a store that had none (keyword only until now)', async () => {
      const store = await sut.open('r_fresh');
      await store.upsert('doc', chunks(TEXTS, undefined));
      await store.beginReindex('openai:new');
      await stageAll(store, 32);
      expect(await store.finishReindex('openai:new')).toBe(true);
      expect((await store.embedderState()).embedder).toEqual({ id: 'openai:new', dimensions: 32 });
      expect((await vectorTop(store, 'pgvector search', 32))[0]).toBe('doc/c1');
    });
  });
}
