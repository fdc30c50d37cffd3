/**
 * Filters through POST /knowledge/search on both stores: the expression language, the plain
 * form, and a key no stored chunk has refused with the valid keys rather than matching nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { Db } from '../src/storage/db.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { settled } from './support/knowledge-content.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const DOCS: [string, string, Record<string, unknown>][] = [
  ['otters.md', 'Sea otters hold hands while they sleep.', { team: 'marine', year: 2021, reviewed: true }],
  ['owls.md', 'Barn owls hunt at night by sound alone.', { team: 'birds', year: 2023, reviewed: false }],
  ['orcas.md', 'Orcas hunt in pods and share the catch.', { team: 'marine', year: 2024, reviewed: true }],
];

const names = (res: { body: Json }) => (res.body.data as Json[]).map((h) => h.name as string).sort();

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`knowledge search filters on ${kind.kind}`, () => {
    let database: TestDatabase;
    let storeDb: Db | undefined;
    let rt: StartedRuntime;
    const search = (filters: unknown) => call(rt.url, 'POST', '/knowledge/search', { body: { query: 'hunt sleep otters owls orcas', search_type: 'keyword', filters } });

    beforeAll(async () => {
      database = await kind.create();
      storeDb = kind.kind === 'postgres' ? database.open() : undefined;
      const store = storeDb ? new PostgresVectorStore({ db: storeDb, table: 'kf_docs' }) : new SqliteVectorStore({ path: ':memory:', table: 'kf_docs' });
      rt = await startRuntimeOn(database, { knowledge: [new Knowledge({ id: 'animals', store })] });
      for (const [name, text, metadata] of DOCS) {
        const res = await call(rt.url, 'POST', '/knowledge/content', { body: { name, text_content: text, metadata } });
        const status = await settled(rt.url, res.body.id);
        if (status.status !== 'completed') throw new Error(`${name} did not complete: ${status.status_message}`);
      }
    });
    afterAll(async () => {
      await rt?.stop();
      await storeDb?.close();
      await database?.cleanup();
    });

    it('takes the expression list and the plain form', async () => {
      expect(names(await search({ team: 'marine' }))).toEqual(['orcas', 'otters']);
      expect(names(await search([{ op: 'GTE', key: 'year', value: 2023 }]))).toEqual(['orcas', 'owls']);
      expect(names(await search([{ op: 'OR', conditions: [{ op: 'EQ', key: 'team', value: 'birds' }, { op: 'LT', key: 'year', value: 2022 }] }]))).toEqual(['otters', 'owls']);
      expect(names(await search([{ op: 'EQ', key: 'reviewed', value: true }, { op: 'NOT', condition: { op: 'IN', key: 'year', values: [2021] } }]))).toEqual(['orcas']);
      // Reader and chunker metadata can be filtered too.
      expect(names(await search([{ op: 'EQ', key: 'chunk', value: 1 }, { op: 'STARTSWITH', key: 'team', value: 'bi' }]))).toEqual(['owls']);
    });

    it('refuses metadata keys the pipeline sets, so nobody can fake a page or a url', async () => {
      for (const key of ['page', 'url', 'chunk']) {
        const res = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'fake.md', text_content: 'text', metadata: { [key]: 1 } } });
        expect(res.status, key).toBe(400);
        expect(res.body.detail).toContain(`metadata key "${key}" is reserved`);
      }
    });

    it('refuses an unknown key with 422 listing the valid ones, and a malformed expression with 400', async () => {
      const unknown = await search([{ op: 'EQ', key: 'taem', value: 'marine' }]);
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail).toMatch(/^Unknown filter key "taem"; valid keys: .*\bteam\b/);
      expect(unknown.body.detail).toContain('year');
      const plainUnknown = await search({ colour: 'red' });
      expect(plainUnknown.status).toBe(422);
      const malformed = await search([{ op: 'BETWEEN', key: 'year', value: 1 }]);
      expect(malformed.status).toBe(400);
      expect(malformed.body.detail).toContain('unknown filter operator "BETWEEN"');
    });
  });
}
