import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../../../test/support/databases.js';
import type { Db } from '../../storage/db.js';
import { ContentStore, type ContentListQuery } from './content-store.js';

const FIELDS = { description: null, metadata: null, file_type: null, size: null, reader_id: null, chunker: null, status: 'completed', status_message: null } as const;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`ContentStore owners on ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;
    let store: ContentStore;

    beforeEach(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      store = new ContentStore(db);
      // Two shared records, three of alice's and three of bob's; a record of another base too.
      const rows: [string, string | null][] = [
        ['s1', null],
        ['s2', null],
        ['a1', 'alice'],
        ['a2', 'alice'],
        ['a3', 'alice'],
        ['b1', 'bob'],
        ['b2', 'bob'],
        ['b3', 'bob'],
      ];
      for (const [id, owner] of rows) await store.create({ id, knowledge_id: 'kb', name: id, ...FIELDS, ...(owner !== null ? { user_id: owner } : {}) });
      await store.create({ id: 'x1', knowledge_id: 'other', name: 'x1', ...FIELDS, user_id: 'alice' });
    });
    afterEach(async () => {
      await db.close();
      await database.cleanup();
    });

    const list = (q: Partial<ContentListQuery>) => store.list({ knowledgeId: 'kb', limit: 20, page: 1, sortBy: 'name', sortOrder: 'asc', ...q });
    const names = async (q: Partial<ContentListQuery>) => (await list(q)).data.map((r) => r.id);

    it('records the owner, null for shared content', async () => {
      expect((await store.get('kb', 'a1'))?.user_id).toBe('alice');
      expect((await store.get('kb', 's1'))?.user_id).toBeNull();
    });

    it('lists, counts and pages only shared records and the user’s own', async () => {
      expect(await names({ visibleTo: 'alice' })).toEqual(['a1', 'a2', 'a3', 's1', 's2']);
      expect(await names({ visibleTo: 'bob' })).toEqual(['b1', 'b2', 'b3', 's1', 's2']);
      expect(await names({ visibleTo: 'carol' })).toEqual(['s1', 's2']);
      expect((await list({})).total).toBe(8);
      // Pages are cut from what the user may see: two full pages of 2 and one of 1, total 5.
      const pages = await Promise.all([1, 2, 3].map((page) => list({ visibleTo: 'alice', limit: 2, page })));
      expect(pages.map((p) => p.data.map((r) => r.id))).toEqual([['a1', 'a2'], ['a3', 's1'], ['s2']]);
      expect(pages.every((p) => p.total === 5)).toBe(true);
    });

    it('filters by status and counts every status over the whole selection, not the page', async () => {
      await store.update('kb', 'a1', { status: 'failed', status_message: 'bad' });
      await store.update('kb', 's2', { status: 'processing' });
      const all = await list({ limit: 1 });
      expect([all.data.length, all.total, all.counts]).toEqual([1, 8, { processing: 1, completed: 6, failed: 1 }]);
      const failed = await list({ status: 'failed' });
      expect([failed.data.map((r) => r.id), failed.total, failed.counts]).toEqual([['a1'], 1, { processing: 0, completed: 0, failed: 1 }]);
      expect((await list({ status: 'completed', visibleTo: 'alice', limit: 2 })).counts).toEqual({ processing: 0, completed: 3, failed: 0 });
    });

    it('keeps the chunker settings a record was built with', async () => {
      expect((await store.get('kb', 'a1'))?.chunker_settings).toBeNull();
      await store.update('kb', 'a1', { reader_id: 'text', chunker: 'FixedSizeChunker', chunker_settings: { chunk_size: 300, chunk_overlap: 20 } });
      expect(await store.get('kb', 'a1')).toMatchObject({ reader_id: 'text', chunker: 'FixedSizeChunker', chunker_settings: { chunk_size: 300, chunk_overlap: 20 } });
    });

    it('gets another user’s record as not found', async () => {
      expect(await store.get('kb', 'b1', 'alice')).toBeUndefined();
      expect((await store.get('kb', 'a1', 'alice'))?.id).toBe('a1');
      expect((await store.get('kb', 's1', 'alice'))?.id).toBe('s1');
      expect((await store.get('kb', 'b1'))?.id).toBe('b1');
    });

    it('names for bulk deletion only the records a user owns, in that knowledge base', async () => {
      expect((await store.ids('kb', { ownedBy: 'alice' })).sort()).toEqual(['a1', 'a2', 'a3']);
      expect((await store.ids('kb', { ownedBy: 'carol' })).sort()).toEqual([]);
      expect((await store.ids('kb')).length).toBe(8);
    });
  });
}
