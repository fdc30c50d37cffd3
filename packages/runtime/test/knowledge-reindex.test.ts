/**
 * Changing a knowledge base's embedder, on SQLite and PostgreSQL: a runtime configured with
 * another embedder than the one that built the store refuses to start with one line saying what
 * to do; KNOWLEDGE_REINDEX (or POST /knowledge/reindex) re-embeds every chunk as a durable job
 * that survives a kill -9, keeps keyword search working, and swaps the vectors in at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors.js';
import { Runtime } from '../src/runtime.js';
import { silentLogger } from '../src/util/logger.js';
import { freePort, startChildRuntime } from './support/child-runtime.js';
import { testKnowledge } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { hashEmbedding, startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { call } from './support/http.js';
import { settled } from './support/knowledge-content.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

/** About 300 chunks of 200 characters. */
const LONG_TEXT = Array.from({ length: 1500 }, (_, i) => `Sentence ${i} about reindexing knowledge.`).join(' ');

interface StoredVector {
  content_id: string;
  chunk_id: string;
  content: string;
  embedding: number[] | null;
}

const inputsOf = (fake: FakeEmbeddings, model: string): string[] =>
  fake.requests.filter((r) => (r.body as { model?: string }).model === model).flatMap((r) => (r.body as { input: string[] }).input);

/** Every stored vector is the one the fake embedder gives its chunk's text at this dimension. */
function expectEmbeddedBy(rows: StoredVector[], dimensions: number): void {
  for (const row of rows) {
    expect(row.embedding).toHaveLength(dimensions);
    const expected = hashEmbedding(row.content, dimensions);
    row.embedding!.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 5));
  }
}

async function status(url: string): Promise<Json> {
  const r = await call(url, 'GET', '/knowledge/reindex');
  expect(r.status).toBe(200);
  return r.body as Json;
}

function completed(url: string, timeoutMs = 30_000): Promise<Json> {
  return eventually(
    async () => {
      const s = await status(url);
      return s.state === 'completed' ? s : undefined;
    },
    timeoutMs,
    'the reindex to complete',
  );
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`reindex on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let database: TestDatabase;
    let dir: string;
    let knowledgePath: string | undefined;
    const stops: (() => Promise<void>)[] = [];

    const knowledge = (embedding: { model?: string; dimensions?: number } = {}) => testKnowledge(embeddings.url, knowledgePath, database.url, embedding);
    const runtime = async (embedding: { model?: string; dimensions?: number } = {}, env: Record<string, string> = {}, internals: { runLeaseMs?: number } = {}): Promise<StartedRuntime> => {
      const rt = await startRuntimeOn(database, { knowledge: [knowledge(embedding)], env }, internals);
      stops.push(() => rt.stop());
      return rt;
    };

    /** What the store holds, read straight from its tables. */
    const stored = async (table = 'kj_docs'): Promise<StoredVector[]> => {
      if (knowledgePath) {
        const db = new Database(knowledgePath, { readonly: true });
        try {
          const rows = db.prepare(`SELECT content_id, chunk_id, content, embedding FROM ${table}_chunks ORDER BY content_id, chunk_id`).all() as (StoredVector & { embedding: Buffer | null })[];
          return rows.map((r) => ({ ...r, embedding: r.embedding ? [...new Float32Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength / 4)] : null }));
        } finally {
          db.close();
        }
      }
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ content_id: string; chunk_id: string; content: string; embedding: string | null }>(
          `SELECT content_id, chunk_id, content, embedding::text AS embedding FROM ${table}_chunks ORDER BY content_id, chunk_id`,
        );
        return rows.map((r) => ({ ...r, embedding: r.embedding ? (JSON.parse(r.embedding) as number[]) : null }));
      } finally {
        await client.end();
      }
    };
    const staged = async (): Promise<Set<string>> => {
      if (knowledgePath) {
        const db = new Database(knowledgePath, { readonly: true });
        try {
          return new Set((db.prepare('SELECT content_id, chunk_id FROM kj_docs_reindex').all() as { content_id: string; chunk_id: string }[]).map((r) => `${r.content_id}/${r.chunk_id}`));
        } finally {
          db.close();
        }
      }
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ content_id: string; chunk_id: string }>('SELECT content_id, chunk_id FROM kj_docs_reindex');
        return new Set(rows.map((r) => `${r.content_id}/${r.chunk_id}`));
      } finally {
        await client.end();
      }
    };

    beforeAll(async () => {
      embeddings = await startFakeEmbeddings({ delayMs: 60 });
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-reindex-'));
      knowledgePath = kind.kind === 'sqlite' ? join(dir, 'knowledge.db') : undefined;
    });
    afterAll(async () => {
      for (const stop of stops.toReversed()) await stop();
      await database?.cleanup();
      await embeddings?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses to start with another embedder, in one line naming both and the fix; KNOWLEDGE_REINDEX re-embeds and switches at once', async () => {
      const first = await runtime();
      for (const text of ['Quokkas live on Rottnest Island.', 'Pgvector stores vectors in PostgreSQL.', 'Tapirs have a short trunk.']) {
        const r = await call(first.url, 'POST', '/knowledge/content', { body: { name: text.slice(0, 10), text_content: text } });
        expect(await settled(first.url, r.body.id)).toMatchObject({ status: 'completed' });
      }
      expect(await status(first.url)).toMatchObject({ state: 'idle', stored_embedder: 'openai:fake-embed', dimensions: 64, chunks_done: 0, chunks_total: 3 });
      await first.stop();

      // The same store, another embedder: the start fails before anything is served.
      const refused = new Runtime({ knowledge: [knowledge({ model: 'new-embed', dimensions: 32 })], env: {}, db: database.open() }, { logger: silentLogger });
      const error = await refused.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      await refused.close();
      expect(error).toBeInstanceOf(ConfigurationError);
      const message = (error as Error).message;
      expect(message).not.toContain('\n');
      expect(message).toMatch(/"docs" was embedded with openai:fake-embed \(64 dimensions\), but this runtime is configured with openai:new-embed:32/);
      expect(message).toMatch(/restore the embedder setting, or start with KNOWLEDGE_REINDEX=docs/);
      expect(message).not.toContain('sk-emb');

      // A setting naming a base the runtime does not host is refused too.
      const typo = new Runtime({ knowledge: [knowledge({ model: 'new-embed', dimensions: 32 })], env: { KNOWLEDGE_REINDEX: 'dosc' }, db: database.open() }, { logger: silentLogger });
      await expect(typo.start()).rejects.toThrow(/KNOWLEDGE_REINDEX names knowledge base "dosc"/);
      await typo.close();

      const before = embeddings.requests.length;
      const second = await runtime({ model: 'new-embed', dimensions: 32 }, { KNOWLEDGE_REINDEX: 'docs' });
      // Searches keep working while it runs (by keyword while the vectors are the old embedder's).
      const during = await call(second.url, 'POST', '/knowledge/search', { body: { query: 'quokkas island', search_type: 'hybrid' } });
      expect(during.status).toBe(200);
      const done = await completed(second.url);
      expect(done).toMatchObject({ state: 'completed', embedder: 'openai:new-embed:32', stored_embedder: 'openai:new-embed:32', dimensions: 32, chunks_done: 3, chunks_total: 3, error: null });
      expectEmbeddedBy(await stored(), 32);
      expect(inputsOf(embeddings, 'new-embed').toSorted()).toEqual((await stored()).map((r) => r.content).toSorted());
      const hits = await call(second.url, 'POST', '/knowledge/search', { body: { query: 'quokkas island', search_type: 'vector', max_results: 1 } });
      expect(hits.body.data[0].content).toContain('Quokkas');
      await second.stop();

      // The setting left in place does nothing more once the store matches.
      const requests = embeddings.requests.length;
      const third = await runtime({ model: 'new-embed', dimensions: 32 }, { KNOWLEDGE_REINDEX: 'docs' });
      expect(await status(third.url)).toMatchObject({ state: 'completed', stored_embedder: 'openai:new-embed:32' });
      await new Promise((r) => setTimeout(r, 300));
      expect(embeddings.requests.length).toBe(requests);
      expect(requests).toBeGreaterThan(before);

      // By hand: one job however often it is asked for, re-embedding with the same embedder. The
      // provider fails the first batch, so the job is still there (waiting to retry) when asked again.
      embeddings.script({ kind: 'error', status: 503 });
      const [a, b] = await Promise.all([call(third.url, 'POST', '/knowledge/reindex'), call(third.url, 'POST', '/knowledge/reindex?knowledge_id=docs')]);
      expect(a.status).toBe(202);
      expect(b.status).toBe(202);
      expect(['queued', 'running']).toContain(a.body.state);
      expect(b.body.job_id).toBe(a.body.job_id);
      await eventually(async () => ((await status(third.url)).attempts >= 1 ? true : undefined), 10_000, 'the first attempt');
      const again = await call(third.url, 'POST', '/knowledge/reindex');
      expect(again.body.job_id).toBe(a.body.job_id);
      // Vector search goes on with the old vectors meanwhile: they are this embedder's.
      const meanwhile = await call(third.url, 'POST', '/knowledge/search', { body: { query: 'tapirs trunk', search_type: 'vector', max_results: 1 } });
      expect(meanwhile.body.data[0].content).toContain('Tapirs');
      expect(await completed(third.url)).toMatchObject({ stored_embedder: 'openai:new-embed:32', chunks_done: 3, chunks_total: 3 });
      expectEmbeddedBy(await stored(), 32);
      await third.stop();
    });

    it('answers bad requests with 4xx: unknown knowledge base, wrong database', async () => {
      const rt = await runtime({ model: 'new-embed', dimensions: 32 });
      expect((await call(rt.url, 'POST', '/knowledge/reindex?knowledge_id=nope')).status).toBe(404);
      expect((await call(rt.url, 'GET', '/knowledge/reindex?db_id=elsewhere')).status).toBe(404);
      await rt.stop();
    });

    it('a provider that refuses the input fails the job for good with its reason; asking again resumes', async () => {
      const rt = await runtime({ model: 'new-embed', dimensions: 32 });
      embeddings.script({ kind: 'error', status: 400 });
      const started = await call(rt.url, 'POST', '/knowledge/reindex');
      expect(started.status).toBe(202);
      const failed = await eventually(
        async () => {
          const s = await status(rt.url);
          return s.state === 'failed' ? s : undefined;
        },
        15_000,
        'the reindex to fail',
      );
      expect(failed).toMatchObject({ job_id: started.body.job_id, attempts: 1, error: expect.stringMatching(/^The embedder refused the reindex: openai: HTTP 400: scripted 400/) });
      expect(failed.error).not.toContain('sk-emb');
      // Searches are untouched, and a new request replaces the failed job and finishes.
      const hits = await call(rt.url, 'POST', '/knowledge/search', { body: { query: 'tapirs trunk', search_type: 'vector', max_results: 1 } });
      expect(hits.body.data[0].content).toContain('Tapirs');
      const again = await call(rt.url, 'POST', '/knowledge/reindex');
      expect(again.body.job_id).not.toBe(started.body.job_id);
      expect(await completed(rt.url)).toMatchObject({ stored_embedder: 'openai:new-embed:32', chunks_done: 3, error: null });
      await rt.stop();
    });

    it('kill -9 mid-reindex: the restart continues where it stopped, every chunk embedded once by the new embedder', async () => {
      // A fresh base on its own table name would need other components; empty this one instead.
      const setup = await runtime({ model: 'new-embed', dimensions: 32 });
      const list = await call(setup.url, 'GET', '/knowledge/content?limit=100');
      for (const r of list.body.data as Json[]) expect((await call(setup.url, 'DELETE', `/knowledge/content/${r.id}`)).status).toBeLessThan(300);
      const long = await call(setup.url, 'POST', '/knowledge/content', { body: { name: 'long.txt', text_content: LONG_TEXT, chunk_size: 200 } });
      expect(await settled(setup.url, long.body.id)).toMatchObject({ status: 'completed' });
      await setup.stop();
      const chunks = await stored();
      expect(chunks.length).toBeGreaterThan(200);

      const child = await startChildRuntime({
        DATABASE_URL: database.url,
        EMBEDDINGS_URL: embeddings.url,
        EMBEDDINGS_MODEL: 'third-embed',
        EMBEDDINGS_DIMENSIONS: '16',
        EMBEDDING_BATCH_SIZE: '5',
        EMBEDDING_MAX_CONCURRENCY: '2',
        KNOWLEDGE_REINDEX: 'docs',
        ...(knowledgePath ? { KNOWLEDGE_PATH: knowledgePath } : {}),
        FAKE_LLM_URL: 'http://127.0.0.1:9',
        RUN_LEASE_SECONDS: '2',
        PORT: String(await freePort()),
      });
      stops.push(child.kill);
      await eventually(() => (inputsOf(embeddings, 'third-embed').length >= 30 ? true : undefined), 20_000, 'the reindex to be under way');
      const running = (await call(child.url, 'GET', '/knowledge/reindex')).body as Json;
      expect(running).toMatchObject({ state: 'running', embedder: 'openai:third-embed:16', stored_embedder: 'openai:new-embed:32' });
      await child.kill();
      const sentBeforeKill = inputsOf(embeddings, 'third-embed').length;
      const kept = await staged();
      expect(kept.size).toBeGreaterThan(0);
      expect(kept.size).toBeLessThan(chunks.length);
      // Nothing of the new embedder is visible to vector search yet.
      expectEmbeddedBy(await stored(), 32);

      // The restart needs no setting: the store says a reindex to its embedder is under way.
      const survivor = await runtime({ model: 'third-embed', dimensions: 16 }, {}, { runLeaseMs: 1000 });
      const keyword = await call(survivor.url, 'POST', '/knowledge/search', { body: { query: 'sentence reindexing', search_type: 'keyword', max_results: 5 } });
      expect(keyword.body.data).toHaveLength(5);
      const done = await completed(survivor.url, 60_000);
      expect(done).toMatchObject({ embedder: 'openai:third-embed:16', stored_embedder: 'openai:third-embed:16', dimensions: 16, chunks_total: chunks.length, chunks_done: chunks.length });

      const after = await stored();
      expect(after).toHaveLength(chunks.length);
      expectEmbeddedBy(after, 16);
      // Work committed before the kill was not done again; only batches in flight at the kill were.
      const key = new Map(chunks.map((c) => [c.content, `${c.content_id}/${c.chunk_id}`]));
      const resent = inputsOf(embeddings, 'third-embed').slice(sentBeforeKill);
      expect(resent.filter((text) => kept.has(key.get(text)!))).toEqual([]);
      const all = inputsOf(embeddings, 'third-embed');
      expect(new Set(all).size).toBe(chunks.length);
      // At most one page was sent twice: the batches at the embedder (concurrency 2, batches of 5)
      // and those back but not yet staged, which the limiter no longer counts (reindex-job.ts
      // reads a page of batch x concurrency x 2 and stages each batch as it returns).
      expect(all.length - chunks.length).toBeLessThanOrEqual(5 * 2 * 2);
      expect(await staged()).toEqual(new Set());
    });
  });
}
