/**
 * Semantic search with no API key, on SQLite and PostgreSQL, against a runtime in a process of
 * its own whose knowledge base is built as the quickstart's library is (every reader, the
 * embedder `embedderFromEnvironment` picks, which with no key is the local sentence encoder):
 *
 * - a base first filled keyword-only (LOCAL_EMBEDDINGS=false, as every runtime before the local
 *   encoder) keeps working when the encoder arrives, and a reindex embeds what it held;
 * - the quickstart's sample corpus goes in, and "how do I collect rain water", whose words the
 *   rainwater-cistern passage does not contain, finds that passage among the first three hits
 *   of a hybrid search;
 * - the model never runs on the event loop: /health, asked every 20 ms from another process,
 *   answers within 100 ms while chunks are embedded and searches are answered;
 * - the store records the encoder as its embedder, so a runtime configured with another one
 *   refuses to start until it is told to reindex, as with any change of embedder.
 *
 * The model loads once per runtime process (in its worker), so each store pays one load.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, SAMPLES_DIR, writeGeneratedSamples } from '../../../examples/quickstart/src/samples.js';
import { LOCAL_WEIGHTS_VERSION } from '../src/providers/local/embeddings.js';
import { freePort, startChildRuntime, type ChildRuntime } from './support/child-runtime.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { call } from './support/http.js';
import { upload } from './support/knowledge-content.js';
import { probeHealth } from './support/loop-probe.js';

type Json = Record<string, any>;

const SCRIPT = new URL('./support/library-runtime-process.ts', import.meta.url);
const LOCAL_ID = `local:universal-sentence-encoder-lite@${LOCAL_WEIGHTS_VERSION}`;
const ALL_TYPES = ['vector', 'keyword', 'hybrid'];
/**
 * /health while the encoder works: p99 as the hostile-content suite holds it, and a maximum
 * that leaves room for a loaded machine (two cores shared with other work) but not for one
 * batch of the model on the event loop, which holds it for 0.3-1 s.
 */
const HEALTH_P99_MS = 100;
const HEALTH_MAX_MS = 250;
/** About 30 chunks of 500 characters (seconds of the encoder's work), on a topic of their own. */
const ESSAY = Array.from({ length: 140 }, (_, i) => `Hive note ${i}: the bee team counted the frames of brood and the honey stores on a warm, still afternoon.`).join(' ');

/** The record's status once it has left `processing`. */
function finished(url: string, id: string): Promise<Json> {
  return eventually(
    async () => {
      const s = (await call(url, 'GET', `/knowledge/content/${id}/status`)).body as Json;
      return s.status === 'processing' ? undefined : s;
    },
    120_000,
    `content ${id} to finish`,
  );
}

/** The reindex status once its job has ended. */
function reindexed(url: string): Promise<Json> {
  return eventually(
    async () => {
      const s = (await call(url, 'GET', '/knowledge/reindex')).body as Json;
      return s.state === 'completed' || s.state === 'failed' ? s : undefined;
    },
    180_000,
    'the reindex to end',
  );
}

async function uploadSample(url: string, file: string, dir: string): Promise<string> {
  const reply = await upload(url, '/knowledge/content', { file: new Blob([readFileSync(join(dir, file))]) }, file);
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  const status = await finished(url, reply.body.id as string);
  expect(status, file).toMatchObject({ status: 'completed' });
  return reply.body.id as string;
}

async function search(url: string, query: string, searchType: string, maxResults = 3): Promise<Json[]> {
  const reply = await call(url, 'POST', '/knowledge/search', { body: { query, search_type: searchType, max_results: maxResults } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data as Json[];
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`semantic search with no API key, on ${kind.kind}`, () => {
    let database: TestDatabase;
    let dir: string;
    let generated: string;
    let runtime: ChildRuntime | undefined;
    const ids = new Map<string, string>();

    const start = async (env: Record<string, string> = {}): Promise<ChildRuntime> =>
      startChildRuntime(
        {
          DATABASE_URL: database.url,
          ...(kind.kind === 'sqlite' ? { KNOWLEDGE_PATH: join(dir, 'knowledge.db') } : {}),
          PORT: String(await freePort()),
          ...env,
        },
        SCRIPT,
      );

    beforeAll(async () => {
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-local-embedder-'));
      // The PDF and Office samples are written by the quickstart's build; the same code writes them here.
      generated = join(dir, 'generated');
      await writeGeneratedSamples(generated);
    }, 60_000);

    afterAll(async () => {
      await runtime?.kill();
      await database?.cleanup();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('a base filled by keyword only (LOCAL_EMBEDDINGS=false) is what runtimes before the encoder made', async () => {
      const old = await start({ LOCAL_EMBEDDINGS: 'false' });
      try {
        const config = (await call(old.url, 'GET', '/knowledge/config')).body as Json;
        expect(config.vector_dbs).toEqual([expect.objectContaining({ id: 'library-store', search_types: ['keyword'] })]);
        ids.set('garden-guide.md', await uploadSample(old.url, 'garden-guide.md', SAMPLES_DIR));
      } finally {
        await old.kill();
      }
    }, 120_000);

    it('with no key, lists vector, keyword and hybrid search, and takes the sample corpus', async () => {
      runtime = await start();
      const config = (await call(runtime.url, 'GET', '/knowledge/config')).body as Json;
      expect(config.vector_dbs).toEqual([expect.objectContaining({ id: 'library-store', search_types: ALL_TYPES })]);
      for (const sample of SAMPLES.filter((s) => !ids.has(s.file))) {
        ids.set(sample.file, await uploadSample(runtime.url, sample.file, sample.generated ? generated : SAMPLES_DIR));
      }
      // New content is embedded; the keyword-only chunks of before still answer keyword search.
      const status = (await call(runtime.url, 'GET', '/knowledge/reindex')).body as Json;
      expect(status).toMatchObject({ stored_embedder: LOCAL_ID, dimensions: 512 });
      expect((await search(runtime.url, 'comfrey tea', 'keyword'))[0]?.content_id).toBe(ids.get('garden-guide.md'));
    }, 240_000);

    it('gives the chunks stored before the encoder their vectors (a reindex)', async () => {
      const url = runtime!.url;
      const reindex = await call(url, 'POST', '/knowledge/reindex');
      expect(reindex.status, JSON.stringify(reindex.body)).toBe(202);
      expect(await reindexed(url)).toMatchObject({ state: 'completed', stored_embedder: LOCAL_ID, dimensions: 512 });
      // The guide from before the encoder is now found by its meaning too.
      const byVector = await search(url, 'a fertiliser brewed from leaves', 'vector', 5);
      expect(byVector.map((h) => h.content_id)).toContain(ids.get('garden-guide.md'));
      // A text upload with a chunker of its own, and a hybrid search: the paths the next test measures.
      const note = await call(url, 'POST', '/knowledge/content', { body: { name: 'note.txt', text_content: 'The shed key hangs by the door.', chunker: 'FixedSizeChunker', chunk_size: 500 } });
      expect(await finished(url, note.body.id as string)).toMatchObject({ status: 'completed' });
      expect(await search(url, 'where is the key', 'hybrid')).not.toEqual([]);
    }, 180_000);

    it('embeds while /health keeps answering: the model never runs on the event loop', async () => {
      const url = runtime!.url;
      // Every path below has run once already (a first use loads modules on the main thread,
      // tens of ms under tsx), so what is measured is the embedding.
      const probe = probeHealth(url);
      await probe.ready;
      const begun = Date.now();
      try {
        const essay = await call(url, 'POST', '/knowledge/content', { body: { name: 'hives.txt', text_content: ESSAY, chunker: 'FixedSizeChunker', chunk_size: 500 } });
        expect(essay.status).toBe(202);
        for (const query of ['how are the bees doing', 'where is the watering can', 'how do I collect rain water']) await search(url, query, 'hybrid');
        expect(await finished(url, essay.body.id as string)).toMatchObject({ status: 'completed' });
        // Everything once more, ~50 chunks: a reindex with the same embedder embeds them all again.
        expect((await call(url, 'POST', '/knowledge/reindex')).status).toBe(202);
        const done = await reindexed(url);
        expect(done).toMatchObject({ state: 'completed', stored_embedder: LOCAL_ID });
        expect(done.chunks_total).toBeGreaterThan(40);
      } finally {
        const seconds = (Date.now() - begun) / 1000;
        const health = await probe.stop();
        process.stdout.write(`local embedder on ${kind.kind}: ${seconds.toFixed(1)} s of embedding, /health p50 ${health.p50.toFixed(1)} / p99 ${health.p99.toFixed(1)} / max ${health.max.toFixed(1)} ms over ${health.samples} answers\n`);
        expect(probe.answers.filter((a) => a.ms === undefined), 'health requests that failed').toEqual([]);
        expect(health.samples).toBeGreaterThan(50);
        expect(health.p99, 'p99 of /health (ms)').toBeLessThan(HEALTH_P99_MS);
        expect(health.max, 'slowest /health answer (ms)').toBeLessThan(HEALTH_MAX_MS);
      }
    }, 300_000);

    it('"how do I collect rain water" finds the rainwater cistern among the first three hybrid hits', async () => {
      const cistern = ids.get('annual-report.pdf');
      const hits = await search(runtime!.url, 'how do I collect rain water', 'hybrid');
      expect(hits.map((h) => h.content_id), JSON.stringify(hits.map((h) => [h.name, String(h.content).slice(0, 60)]))).toContain(cistern);
      expect(hits.find((h) => h.content_id === cistern)?.content.replace(/\s+/g, ' ')).toContain('rainwater cistern');
      // The words alone do not get there: "rain" is not "rainwater", and "water" is the watering can's.
      const byWords = await search(runtime!.url, 'how do I collect rain water', 'keyword');
      expect(byWords[0]?.content_id).not.toBe(cistern);
    }, 60_000);

    it('records the encoder as the store’s embedder: another embedder refuses to start until told to reindex', async () => {
      await runtime!.kill();
      runtime = undefined;
      const other = start({ OLLAMA_EMBEDDING_MODEL: 'nomic-embed-text', OLLAMA_HOST: '127.0.0.1:9' });
      await expect(other).rejects.toThrow(`was embedded with ${LOCAL_ID} (512 dimensions), but this runtime is configured with ollama:nomic-embed-text`);
      // The encoder again: the store is its own, and it starts.
      runtime = await start();
      expect((await search(runtime.url, 'how do I collect rain water', 'hybrid')).map((h) => h.content_id)).toContain(ids.get('annual-report.pdf'));
    }, 120_000);
  });
}
