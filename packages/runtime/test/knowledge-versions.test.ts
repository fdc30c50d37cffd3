/**
 * Versions of a document through the content API, on SQLite and PostgreSQL: uploading under a
 * name already used replaces the earlier version when the new one completes (searches see the
 * old version until then and the new one after, never both, never neither); write_mode skip
 * keeps the newest version and insert adds a record beside it; an earlier version uploaded again
 * becomes the current one; and a runtime killed with SIGKILL mid-replacement leaves the old
 * version searchable until a survivor finishes the new one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKnowledgeChild } from './support/child-runtime.js';
import { testKnowledge } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { call } from './support/http.js';
import { settled, upload } from './support/knowledge-content.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const OLD_TEXT = 'The handbook says the vault code is 1234. The handbook is reviewed yearly.';
/** About 500 chunks of 200 characters: 5 embedding batches, so the new version takes a while. */
const NEW_TEXT = Array.from({ length: 2500 }, (_, i) => `Handbook sentence ${i}: the vault code changed.`).join(' ');

/** Which contents one search finds, and how many chunks of each (one query: one snapshot). */
async function visible(url: string, query = 'handbook'): Promise<Record<string, number>> {
  const res = await call(url, 'POST', '/knowledge/search', { body: { query, search_type: 'keyword', max_results: 1000 } });
  expect(res.status).toBe(200);
  const counts: Record<string, number> = {};
  for (const hit of res.body.data as Json[]) counts[hit.content_id] = (counts[hit.content_id] ?? 0) + 1;
  return counts;
}

const named = async (url: string, name: string): Promise<Json[]> =>
  ((await call(url, 'GET', '/knowledge/content?limit=100')).body.data as Json[]).filter((r) => r.name === name);

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`versions of a document on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let database: TestDatabase;
    let dir: string;
    let knowledgePath: string | undefined;
    let rt: StartedRuntime;
    const stops: (() => Promise<void>)[] = [];

    const runtime = async (internals: { runLeaseMs?: number } = {}): Promise<StartedRuntime> => {
      const started = await startRuntimeOn(database, { knowledge: [testKnowledge(embeddings.url, knowledgePath, database.url)] }, internals);
      stops.push(() => started.stop());
      return started;
    };

    beforeAll(async () => {
      embeddings = await startFakeEmbeddings({ delayMs: 150 });
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-kversions-'));
      knowledgePath = kind.kind === 'sqlite' ? join(dir, 'knowledge.db') : undefined;
      rt = await runtime();
    });
    afterAll(async () => {
      for (const stop of stops.toReversed()) await stop();
      await database?.cleanup();
      await embeddings?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a new version under the same name replaces the old one when it completes, and not before', async () => {
      const v1 = await upload(rt.url, '/knowledge/content', { file: new Blob([OLD_TEXT], { type: 'text/plain' }) }, 'handbook.txt');
      expect(await settled(rt.url, v1.body.id)).toMatchObject({ status: 'completed' });
      expect(await visible(rt.url)).toEqual({ [v1.body.id]: 1 });

      const v2 = await upload(rt.url, '/knowledge/content', { file: new Blob([NEW_TEXT], { type: 'text/plain' }), chunk_size: '200' }, 'handbook.txt');
      expect(v2.status).toBe(202);
      expect(v2.body.id).not.toBe(v1.body.id);
      // While the new version is read and embedded, searches see the old one only, whole.
      let polls = 0;
      for (;;) {
        const status = (await call(rt.url, 'GET', `/knowledge/content/${v2.body.id}/status`)).body.status;
        const seen = await visible(rt.url);
        if (status !== 'processing') break;
        expect([{ [v1.body.id]: 1 }, { [v2.body.id]: expect.any(Number) }]).toContainEqual(seen);
        if (seen[v1.body.id] === 1) polls++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(polls).toBeGreaterThan(0);
      expect(await settled(rt.url, v2.body.id)).toMatchObject({ status: 'completed' });
      const after = await visible(rt.url);
      expect(Object.keys(after)).toEqual([v2.body.id]);
      expect(after[v2.body.id]).toBeGreaterThan(400);
      // The old record went with its chunks; the name has one record, the new one.
      expect((await call(rt.url, 'GET', `/knowledge/content/${v1.body.id}`)).status).toBe(404);
      expect((await named(rt.url, 'handbook.txt')).map((r) => r.id)).toEqual([v2.body.id]);

      // Uploading the earlier text again makes it the current version again.
      const back = await upload(rt.url, '/knowledge/content', { file: new Blob([OLD_TEXT], { type: 'text/plain' }) }, 'handbook.txt');
      expect([back.status, back.body.id]).toEqual([202, v1.body.id]);
      expect(await settled(rt.url, back.body.id)).toMatchObject({ status: 'completed' });
      expect(await visible(rt.url)).toEqual({ [v1.body.id]: 1 });
      expect((await named(rt.url, 'handbook.txt')).map((r) => r.id)).toEqual([v1.body.id]);
    }, 120_000);

    it('write_mode decides: skip keeps the newest version, insert adds a record beside it', async () => {
      const first = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'rota', text_content: 'The rota puts Ines on Mondays.' } });
      expect(await settled(rt.url, first.body.id)).toMatchObject({ status: 'completed' });
      const skipped = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'rota', text_content: 'The rota puts Ines on Tuesdays.', write_mode: 'skip' } });
      expect(skipped).toMatchObject({ status: 200, body: { id: first.body.id, status: 'completed' } });
      expect(await visible(rt.url, 'rota')).toEqual({ [first.body.id]: 1 });

      const inserted = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'rota', text_content: 'The rota puts Ines on Fridays.', write_mode: 'insert' } });
      expect(inserted.status).toBe(202);
      expect(await settled(rt.url, inserted.body.id)).toMatchObject({ status: 'completed' });
      expect(await visible(rt.url, 'rota')).toEqual({ [first.body.id]: 1, [inserted.body.id]: 1 });
      expect((await named(rt.url, 'rota')).map((r) => r.id).sort()).toEqual([first.body.id, inserted.body.id].sort());

      // The default (upsert) replaces both earlier versions at once.
      const latest = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'rota', text_content: 'The rota puts Ines on Sundays.' } });
      expect(await settled(rt.url, latest.body.id)).toMatchObject({ status: 'completed' });
      expect(await visible(rt.url, 'rota')).toEqual({ [latest.body.id]: 1 });
      expect((await named(rt.url, 'rota')).map((r) => r.id)).toEqual([latest.body.id]);
      // A version that fails replaces nothing: the current one stays.
      const broken = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'rota', text_content: '{"rota": ', reader_id: 'json' } });
      expect(await settled(rt.url, broken.body.id)).toMatchObject({ status: 'failed' });
      expect(await visible(rt.url, 'rota')).toEqual({ [latest.body.id]: 1 });
    }, 60_000);

    it('kill -9 mid-replacement: the old version stays searchable until a survivor completes the new one', async () => {
      const v1 = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'manual.txt', text_content: 'The manual says: handbook of the boiler, page one.' } });
      expect(await settled(rt.url, v1.body.id)).toMatchObject({ status: 'completed' });
      const child = await startKnowledgeChild({ databaseUrl: database.url, embeddingsUrl: embeddings.url, knowledgePath });
      stops.push(child.kill);
      const before = embeddings.requests.length;
      const v2 = await call(child.url, 'POST', '/knowledge/content', { body: { name: 'manual.txt', text_content: NEW_TEXT, chunk_size: 200 } });
      expect(v2.status).toBe(202);
      // Killed while the new version's second of five batches is being embedded.
      await eventually(() => (embeddings.requests.length >= before + 2 ? true : undefined), 10_000, 'embedding to be under way');
      await child.kill();
      const manual = async () => Object.fromEntries(Object.entries(await visible(rt.url)).filter(([id]) => id === v1.body.id || id === v2.body.id));
      expect(await manual()).toEqual({ [v1.body.id]: 1 });

      const survivor = await runtime({ runLeaseMs: 1000 });
      const status = await eventually(async () => {
        const s = (await call(survivor.url, 'GET', `/knowledge/content/${v2.body.id}/status`)).body as Json;
        return s.status === 'processing' ? undefined : s;
      }, 60_000, 'the survivor to finish the new version');
      expect(status).toMatchObject({ status: 'completed' });
      const after = await manual();
      expect(Object.keys(after)).toEqual([v2.body.id]);
      expect((await named(survivor.url, 'manual.txt')).map((r) => r.id)).toEqual([v2.body.id]);
    }, 120_000);
  });
}
