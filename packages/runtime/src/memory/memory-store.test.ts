import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../../test/support/databases.js';
import type { Embedder } from '../model/embedder.js';
import type { Db } from '../storage/db.js';
import { applyChange, type ChangeContext } from './changes.js';
import { MemoryStore } from './memory-store.js';
import { recall } from './recall.js';

/** A tiny embedder: a vector per concept word, so "sweets" and "dessert" are close without sharing a word. */
const CONCEPTS = [['dessert', 'cake', 'sweet', 'sweets', 'chocolate'], ['travel', 'flight', 'trip', 'train'], ['dog', 'pet', 'puppy']];
const embedder: Embedder = {
  id: 'test:concepts',
  provider: 'test',
  model: 'concepts',
  embed: async (texts) =>
    texts.map((t) => {
      const words = t.toLowerCase().match(/[a-z]+/g) ?? [];
      return CONCEPTS.map((group) => words.filter((w) => group.includes(w)).length + 0.01);
    }),
};

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`memories on ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;
    let store: MemoryStore;
    const ctx = (userId: string, runId = 'r1'): ChangeContext => ({ store, userId, agentId: 'a1', runId, embedder });

    beforeEach(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      store = new MemoryStore(db);
    });
    afterEach(async () => {
      await db.close();
      await database.cleanup();
    });

    it('recalls by meaning with an embedder, by shared words without one, and only the user’s own, within the budget', async () => {
      await applyChange(ctx('u1'), { action: 'add', memory: 'Loves chocolate cake' });
      await applyChange(ctx('u1'), { action: 'add', memory: 'Takes the train to work' });
      await applyChange(ctx('u1'), { action: 'add', memory: 'Has a puppy called Rex' });
      await applyChange(ctx('u2'), { action: 'add', memory: 'Hates sweet things and cake' });
      const semantic = await recall(store, 'u1', 'Suggest a dessert', { budgetTokens: 500, maxMemories: 1, embedder });
      expect(semantic).toMatchObject({ search: 'semantic', candidates: 3 });
      expect(semantic.memories.map((m) => m.memory)).toEqual(['Loves chocolate cake']);
      const keyword = await recall(store, 'u1', 'Which train should I take?', { budgetTokens: 500, maxMemories: 1 });
      expect(keyword.search).toBe('keyword');
      expect(keyword.memories.map((m) => m.memory)).toEqual(['Takes the train to work']);
      // Nothing relevant: the most recent come first; never another user's.
      const all = await recall(store, 'u1', 'hello', { budgetTokens: 500, maxMemories: 10 });
      expect(all.memories.map((m) => m.memory)).toEqual(['Has a puppy called Rex', 'Takes the train to work', 'Loves chocolate cake']);
      const tight = await recall(store, 'u1', 'hello', { budgetTokens: 30, maxMemories: 10 });
      expect(tight.memories.length).toBeLessThan(3);
      expect(tight.tokens).toBeLessThanOrEqual(30);
    });

    it('keeps a duplicate out, and an update that lost a race beside the winner instead of over it', async () => {
      const first = await applyChange(ctx('u1'), { action: 'add', memory: 'Lives in Lyon' });
      expect(await applyChange(ctx('u1'), { action: 'add', memory: ' lives in lyon ' })).toMatchObject({ result: 'duplicate', memory_id: first.memory_id });
      const read = (await store.get(first.memory_id!, 'u1'))!;
      // Another run changes it after this one read it.
      await store.update(read.memory_id, { memory: 'Lives in Paris', expected_version: read.version }, 'u1');
      await expect(store.update(read.memory_id, { memory: 'Lives in Lyon 2nd', expected_version: read.version }, 'u1')).rejects.toMatchObject({ code: 'CONFLICT' });
      // Through applyChange the losing text is kept as its own memory.
      const realStore = store;
      const racing: MemoryStore = Object.create(realStore) as MemoryStore;
      racing.get = async (id, owner) => ({ ...(await realStore.get(id, owner))!, version: 1 });
      const outcome = await applyChange({ ...ctx('u1', 'r2'), store: racing }, { action: 'update', memory_id: read.memory_id, memory: 'Lives in Marseille' });
      expect(outcome.result).toBe('kept-beside');
      const texts = (await store.list({ limit: 10, page: 1, sort_by: 'created_at', sort_order: 'asc' }, 'u1')).data.map((m) => m.memory);
      expect(texts).toEqual(['Lives in Paris', 'Lives in Marseille']);
      // Another user's id is not found for this user, and deleting it does nothing.
      expect(await applyChange(ctx('u2'), { action: 'delete', memory_id: read.memory_id })).toMatchObject({ result: 'not-found' });
      expect(await store.get(read.memory_id, undefined)).toBeDefined();
    });
  });
}
