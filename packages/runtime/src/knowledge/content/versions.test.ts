import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../../../test/support/databases.js';
import type { Db } from '../../storage/db.js';
import { ContentStore, type ContentStatus } from './content-store.js';
import { hasNewerVersion, latestVersion, markUploaded, versionsAround } from './versions.js';

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`versions of a name on ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;
    let store: ContentStore;
    let clock = 1_000;

    const add = async (id: string, name: string, status: ContentStatus = 'completed', extra: { user_id?: string; parent_id?: string; knowledge_id?: string } = {}) => {
      await store.create({ id, knowledge_id: 'kb', name, description: null, metadata: null, file_type: null, size: null, reader_id: null, chunker: null, status, status_message: null, ...extra });
      // Records made in one millisecond would be ordered by id; these are ordered by time.
      await db.execute('UPDATE svc_knowledge_contents SET created_at = $1 WHERE id = $2', [clock++, id]);
    };

    beforeEach(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      store = new ContentStore(db);
    });
    afterEach(async () => {
      await db.close();
      await database.cleanup();
    });

    it('orders versions of one name, one owner and one base by upload, leaving collections and other names alone', async () => {
      await add('v1', 'policy.md');
      await add('other', 'notes.md');
      await add('alices', 'policy.md', 'completed', { user_id: 'alice' });
      await add('elsewhere', 'policy.md', 'completed', { knowledge_id: 'kb2' });
      await add('site', 'policy.md');
      await add('page', 'https://example.com/', 'completed', { parent_id: 'site' });
      await add('v2', 'policy.md', 'processing');
      await add('v3', 'policy.md', 'processing');

      expect(await versionsAround(db, 'kb', 'v2', 'policy.md', null)).toEqual({ older: ['v1'], superseded: false });
      expect(await versionsAround(db, 'kb', 'v3', 'policy.md', null)).toEqual({ older: ['v2', 'v1'], superseded: false });
      expect(await versionsAround(db, 'kb', 'alices', 'policy.md', 'alice')).toEqual({ older: [], superseded: false });
      expect(await latestVersion(db, 'kb', 'policy.md', null, 'none')).toBe('v3');
      expect(await hasNewerVersion(db, 'kb', 'policy.md', null, 'v1')).toBe(true);
      expect(await hasNewerVersion(db, 'kb', 'policy.md', null, 'v3')).toBe(false);
    });

    it('an earlier upload is superseded once a later one completed, and an upload queued again is the newest', async () => {
      await add('v1', 'guide.md', 'processing');
      await add('v2', 'guide.md', 'completed');
      expect(await versionsAround(db, 'kb', 'v1', 'guide.md', null)).toEqual({ older: [], superseded: true });
      await markUploaded(db, 'kb', 'v1');
      expect(await versionsAround(db, 'kb', 'v1', 'guide.md', null)).toEqual({ older: ['v2'], superseded: false });
      expect(await hasNewerVersion(db, 'kb', 'guide.md', null, 'v2')).toBe(true);
    });
  });
}
