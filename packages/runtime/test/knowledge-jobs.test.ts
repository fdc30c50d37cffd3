/**
 * Ingestion as durable jobs, on SQLite and PostgreSQL: content identity and write modes, and a
 * runtime killed with SIGKILL in the middle of embedding whose job another runtime (or the
 * restarted one) finishes, with nothing lost and nothing stored twice.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_DATA_MIN_BYTES } from '../src/jobs/job-store.js';
import { startKnowledgeChild } from './support/child-runtime.js';
import { testKnowledge } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { call } from './support/http.js';
import { settled } from './support/knowledge-content.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

/** 2,500 numbered sentences: about 500 chunks of 200 characters, 5 embedding batches. */
const LONG_TEXT = Array.from({ length: 2500 }, (_, i) => `Sentence ${i} about durable ingestion.`).join(' ');

const searchAll = async (url: string, query: string): Promise<Json[]> =>
  (await call(url, 'POST', '/knowledge/search', { body: { query, search_type: 'keyword', max_results: 1000, meta: { limit: 1000 } } })).body.data;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`durable ingestion on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let database: TestDatabase;
    let dir: string;
    let knowledgePath: string | undefined;
    const stops: (() => Promise<void>)[] = [];

    const runtime = async (internals: { runLeaseMs?: number } = {}): Promise<StartedRuntime> => {
      const rt = await startRuntimeOn(database, { knowledge: [testKnowledge(embeddings.url, knowledgePath, database.url)] }, internals);
      stops.push(() => rt.stop());
      return rt;
    };

    /** A runtime in a child process on the same database, for kill -9 (a short lease, so a survivor takes its jobs soon). */
    const killableRuntime = async () => {
      const child = await startKnowledgeChild({ databaseUrl: database.url, embeddingsUrl: embeddings.url, knowledgePath });
      stops.push(child.kill);
      return child;
    };

    beforeAll(async () => {
      embeddings = await startFakeEmbeddings({ delayMs: 250 });
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-kjobs-'));
      knowledgePath = kind.kind === 'sqlite' ? join(dir, 'knowledge.db') : undefined;
    });
    afterAll(async () => {
      for (const stop of stops.toReversed()) await stop();
      await database?.cleanup();
      await embeddings?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the same bytes are one content: upsert and skip leave it, insert is 409, metadata is not part of its id', async () => {
      const rt = await runtime();
      const first = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'note.txt', text_content: 'The quokka smiles at visitors.' } });
      expect(first.status).toBe(202);
      expect(await settled(rt.url, first.body.id)).toMatchObject({ status: 'completed' });
      const batches = embeddings.requests.length;

      const again = await call(rt.url, 'POST', '/knowledge/content', {
        body: { name: 'note.txt', text_content: 'The quokka smiles at visitors.', metadata: { team: 'zoo' } },
      });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: first.body.id, status: 'completed' });
      const skipped = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'note.txt', text_content: 'The quokka smiles at visitors.', write_mode: 'skip' } });
      expect(skipped).toMatchObject({ status: 200, body: { id: first.body.id } });
      const refused = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'note.txt', text_content: 'The quokka smiles at visitors.', write_mode: 'insert' } });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error_code: 'CONFLICT', detail: expect.stringContaining(first.body.id) });
      // Nothing was read or embedded again.
      expect(embeddings.requests.length).toBe(batches);
      expect(await searchAll(rt.url, 'quokka')).toHaveLength(1);

      // Other settings build other chunks: a different content, and under the same name a new
      // version of note.txt, which replaces the first when it completes.
      const resized = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'note.txt', text_content: 'The quokka smiles at visitors.', chunk_size: 10 } });
      expect(resized.status).toBe(202);
      expect(resized.body.id).not.toBe(first.body.id);
      await settled(rt.url, resized.body.id);
      const list = await call(rt.url, 'GET', '/knowledge/content');
      expect(list.body.data.filter((r: Json) => r.name === 'note.txt').map((r: Json) => r.id)).toEqual([resized.body.id]);
      expect((await call(rt.url, 'GET', `/knowledge/content/${first.body.id}`)).status).toBe(404);
      expect(new Set((await searchAll(rt.url, 'quokka')).map((h) => h.content_id))).toEqual(new Set([resized.body.id]));
    });

    it('failed content is retried by an upsert of the same bytes, and leaves no chunks behind', async () => {
      const rt = await runtime();
      const bad = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'broken.json', text_content: '{"not": json', reader_id: 'json' } });
      expect(await settled(rt.url, bad.body.id)).toMatchObject({ status: 'failed', status_message: expect.stringMatching(/JSON/i) });
      const retried = await call(rt.url, 'POST', '/knowledge/content', { body: { name: 'broken.json', text_content: '{"not": json', reader_id: 'json' } });
      expect(retried).toMatchObject({ status: 202, body: { id: bad.body.id, status: 'processing' } });
      expect(await settled(rt.url, bad.body.id)).toMatchObject({ status: 'failed' });
      expect(await searchAll(rt.url, 'not')).toEqual([]);
    });

    it('kill -9 in the middle of embedding: another runtime takes the job over and finishes it, nothing lost or stored twice', async () => {
      const child = await killableRuntime();
      const before = embeddings.requests.length;
      const accepted = await call(child.url, 'POST', '/knowledge/content', { body: { name: 'long.txt', text_content: LONG_TEXT, chunk_size: 200 } });
      expect(accepted.status).toBe(202);
      // Killed while the second of five batches is being embedded.
      await eventually(() => (embeddings.requests.length >= before + 2 ? true : undefined), 10_000, 'embedding to be under way');
      await child.kill();

      const survivor = await runtime({ runLeaseMs: 1000 });
      const status = await eventually(async () => {
        const s = (await call(survivor.url, 'GET', `/knowledge/content/${accepted.body.id}/status`)).body as Json;
        return s.status === 'processing' ? undefined : s;
      }, 30_000, 'the survivor to finish the job');
      expect(status).toEqual({ id: accepted.body.id, status: 'completed', status_message: null });
      const record = (await call(survivor.url, 'GET', `/knowledge/content/${accepted.body.id}`)).body as Json;
      const hits = await searchAll(survivor.url, 'durable');
      expect(hits.length).toBeGreaterThan(400);
      // Every chunk once: no leftovers of the killed attempt, no duplicates.
      expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
      expect(hits.every((h) => h.content_id === accepted.body.id)).toBe(true);
      expect(record).toMatchObject({ status: 'completed', name: 'long.txt' });
      const jobs = await database.open();
      try {
        // The finished job is gone; only the failed one of the test above is kept, with its error.
        expect(await jobs.query("SELECT status FROM svc_jobs WHERE status <> 'failed'")).toEqual([]);
      } finally {
        await jobs.close();
      }
    });

    it('kill -9 right after a large upload is accepted: the restart reads the input back and finishes it, and no input file outlives its job', async () => {
      const child = await killableRuntime();
      // About 1.5 MB: more than a SQLite job row keeps (1 MiB), so the input is in a file.
      const text = Array.from({ length: 40_000 }, (_, i) => `Large upload sentence ${i} survives a crash.`).join(' ');
      expect(Buffer.byteLength(text)).toBeGreaterThan(FILE_DATA_MIN_BYTES);
      const accepted = await call(child.url, 'POST', '/knowledge/content', { body: { name: 'large.txt', text_content: text, chunk_size: 4000 } });
      expect(accepted.status).toBe(202);
      await child.kill();

      // SQLite: the input is a file beside the database, named by the job's row; a file no job
      // names (a crash between writing one and committing its job) is there too.
      const inputs = kind.kind === 'sqlite' ? `${database.url}.jobs` : undefined;
      const orphan = `${child.process.pid}-${randomUUID()}.job`;
      const listed = () => (inputs ? readdirSync(inputs) : []);
      const check = database.open();
      const named = (await check.query<{ data_file: string | null }>('SELECT data_file FROM svc_jobs WHERE ref LIKE $1', [`%/${accepted.body.id}`])).map((r) => r.data_file);
      await check.close();
      // The job is still there (killed before it finished); on PostgreSQL its input is in its row.
      expect(named.map((name) => (name === null ? null : /^\d+-[0-9a-f-]{36}\.job$/.test(name)))).toEqual([inputs ? true : null]);
      expect(listed()).toEqual(inputs ? named : []);
      if (inputs) writeFileSync(join(inputs, orphan), 'left by a crash');

      const survivor = await runtime({ runLeaseMs: 1000 });
      // Swept at start: the orphan, not the input its job still needs.
      expect(listed()).toEqual(inputs ? named : []);
      const status = await eventually(async () => {
        const s = (await call(survivor.url, 'GET', `/knowledge/content/${accepted.body.id}/status`)).body as Json;
        return s.status === 'processing' ? undefined : s;
      }, 60_000, 'the restarted runtime to finish the large upload');
      expect(status).toEqual({ id: accepted.body.id, status: 'completed', status_message: null });
      const record = (await call(survivor.url, 'GET', `/knowledge/content/${accepted.body.id}`)).body as Json;
      // The whole text was read back: its size, and its last sentence is searchable.
      expect(record).toMatchObject({ name: 'large.txt', size: Buffer.byteLength(text) });
      const last = await call(survivor.url, 'POST', '/knowledge/search', { body: { query: '39999', search_type: 'keyword', max_results: 5 } });
      expect(last.body.data.some((h: Json) => String(h.content).includes('Large upload sentence 39999 survives a crash.'))).toBe(true);
      // The finished job took its input file with it.
      await eventually(() => (listed().length === 0 ? true : undefined), 5000, 'the input file to be removed');
      // The same text again is the same content, left as it is: no input is stored for it.
      const again = await call(survivor.url, 'POST', '/knowledge/content', { body: { name: 'large.txt', text_content: text, chunk_size: 4000 } });
      expect(again).toMatchObject({ status: 200, body: { id: accepted.body.id, status: 'completed' } });
      expect(listed()).toEqual([]);
    });
  });
}
