/**
 * Retrieval evals through HTTP on SQLite and PostgreSQL: four documents with one distinctive
 * subject each, labelled queries sent as JSON and as a BEIR folder's files (multipart), the
 * figures checked against values computed by hand for keyword search (its rankings here are
 * known: only the documents holding a query's words match) and against the metrics over the
 * runtime's own search results for vector and hybrid; bad input is a 4xx naming the problem;
 * a runtime killed with SIGKILL mid-eval leaves the eval to a survivor, which completes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvalStore } from '../src/knowledge/evals/eval-store.js';
import { meanScores, scoreQuery } from '../src/knowledge/evals/metrics.js';
import { startKnowledgeChild } from './support/child-runtime.js';
import { testKnowledge } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { call } from './support/http.js';
import { settled } from './support/knowledge-content.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const DOCS: Record<string, string> = {
  d1: 'Alpha particles are helium nuclei emitted in radioactive decay.',
  d2: 'The bravo team practised the drill at dawn.',
  d3: 'Charlie wrote a letter about the harbour lights.',
  d4: 'The delta of the river floods every spring.',
};
const QUERIES = '{"_id": "q1", "text": "alpha particles"}\n{"_id": "q2", "text": "bravo drill"}\n{"_id": "q3", "text": "river floods"}\n{"_id": "q4", "text": "never judged"}\n';
// q2: d2 (grade 1) and d3 (grade 2) relevant; q3: d1 relevant, which its words do not match.
const QRELS = 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq2\td3\t2\nq3\td1\t1\nq3\td4\t0\n';
// Keyword search finds q1 -> [d1], q2 -> [d2], q3 -> [d4]:
// nDCG@10: q1 1; q2 (1/log2 2) / (2/log2 2 + 1/log2 3); q3 0. MRR@10: 1, 1, 0. Recall@100: 1, 1/2, 0.
const Q2_NDCG = 1 / (2 + 1 / Math.log2(3));
const KEYWORD = { ndcg: (1 + Q2_NDCG + 0) / 3, mrr: 2 / 3, recall: 0.5 };

async function form(url: string, path: string, fields: Record<string, string>, files: Record<string, string>): Promise<{ status: number; body: any }> {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  for (const [k, v] of Object.entries(files)) body.append(k, new Blob([v]), `${k}.txt`);
  const res = await fetch(`${url}${path}`, { method: 'POST', body });
  return { status: res.status, body: await res.json() };
}

async function finished(url: string, id: string): Promise<Json> {
  return eventually(async () => {
    const r = await call(url, 'GET', `/knowledge/evals/${id}`);
    expect(r.status).toBe(200);
    return r.body.status === 'completed' || r.body.status === 'failed' ? (r.body as Json) : undefined;
  }, 60_000, `eval ${id} to finish`);
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`retrieval evals on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let database: TestDatabase;
    let dir: string;
    let knowledgePath: string | undefined;
    let rt: StartedRuntime;
    const ids: Record<string, string> = {};
    const stops: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      embeddings = await startFakeEmbeddings({ delayMs: 100 });
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-kevals-'));
      knowledgePath = kind.kind === 'sqlite' ? join(dir, 'knowledge.db') : undefined;
      rt = await startRuntimeOn(database, { knowledge: [testKnowledge(embeddings.url, knowledgePath, database.url)] });
      stops.push(() => rt.stop());
      for (const [name, text] of Object.entries(DOCS)) {
        const r = await call(rt.url, 'POST', '/knowledge/content', { body: { name, text_content: text } });
        if (r.status !== 202) throw new Error(`upload answered ${r.status}`);
        ids[name] = r.body.id;
        const status = (await settled(rt.url, r.body.id)).status;
        if (status !== 'completed') throw new Error(`upload ${name} ended ${status}`);
      }
    }, 60_000);
    afterAll(async () => {
      for (const stop of stops.toReversed()) await stop();
      await database?.cleanup();
      await embeddings?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a BEIR folder uploaded as files: keyword figures as computed by hand, vector and hybrid as the searches rank', async () => {
      const started = await form(rt.url, '/knowledge/evals', { name: 'first' }, { queries: QUERIES, qrels: QRELS });
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({ status: 'queued', queries_total: 3, k: 10, recall_k: 100, search_types: ['vector', 'keyword', 'hybrid'], name: 'first' });
      const done = await finished(rt.url, started.body.id);
      expect(done).toMatchObject({ status: 'completed', error: null, queries_done: 3 });
      expect(done.results.keyword.ndcg).toBeCloseTo(KEYWORD.ndcg, 10);
      expect(done.results.keyword.mrr).toBeCloseTo(KEYWORD.mrr, 10);
      expect(done.results.keyword.recall).toBeCloseTo(KEYWORD.recall, 10);
      expect(done.queries.map((q: Json) => [q.id, q.relevant])).toEqual([['q1', 1], ['q2', 2], ['q3', 1]]);
      expect(done.queries[1].scores.keyword.ndcg).toBeCloseTo(Q2_NDCG, 10);
      // What the base was built with, for comparing evals across a reindex or a chunker change.
      expect(done.settings.embedder).toEqual({ id: expect.stringMatching(/^openai:fake-embed/), dimensions: expect.any(Number) });
      expect(done.settings).toMatchObject({ contents: 4, chunks: 4 });
      expect(done.settings.chunkers[0]).toMatchObject({ contents: 4, chunker: expect.any(String) });
      // Vector and hybrid: the same metrics over the runtime's own search results.
      const judged: Record<string, Map<string, number>> = { q1: new Map([[ids.d1!, 1]]), q2: new Map([[ids.d2!, 1], [ids.d3!, 2]]), q3: new Map([[ids.d1!, 1], [ids.d4!, 0]]) };
      const texts: Record<string, string> = { q1: 'alpha particles', q2: 'bravo drill', q3: 'river floods' };
      for (const type of ['vector', 'hybrid']) {
        const scores = [];
        for (const q of ['q1', 'q2', 'q3']) {
          const r = await call(rt.url, 'POST', '/knowledge/search', { body: { query: texts[q], search_type: type, max_results: 100 } });
          scores.push(scoreQuery((r.body.data as Json[]).map((h) => h.content_id), judged[q]!, 10, 100));
        }
        const mean = meanScores(scores);
        expect(done.results[type].ndcg).toBeCloseTo(mean.ndcg, 10);
        expect(done.results[type].mrr).toBeCloseTo(mean.mrr, 10);
        expect(done.results[type].recall).toBeCloseTo(mean.recall, 10);
      }
    });

    it('labelled queries as JSON, by content name or id, graded, one search type; listed newest first', async () => {
      const body = {
        name: 'json',
        search_types: ['keyword'],
        k: 5,
        queries: [
          { id: 'a', query: 'alpha particles', relevant: ['d1'] },
          { query: 'bravo drill', relevant: [{ content: ids.d2, grade: 1 }, { content: 'd3', grade: 2 }] },
        ],
      };
      const started = await call(rt.url, 'POST', '/knowledge/evals', { body });
      expect(started.status).toBe(202);
      const done = await finished(rt.url, started.body.id);
      expect(done).toMatchObject({ status: 'completed', k: 5, search_types: ['keyword'] });
      expect(Object.keys(done.results)).toEqual(['keyword']);
      expect(done.results.keyword.ndcg).toBeCloseTo((1 + Q2_NDCG) / 2, 10);
      expect(done.results.keyword.recall).toBeCloseTo(0.75, 10);
      expect(done.queries.map((q: Json) => q.id)).toEqual(['a', '2']);
      const list = await call(rt.url, 'GET', '/knowledge/evals?limit=1');
      expect(list.status).toBe(200);
      expect(list.body.meta.total_count).toBeGreaterThanOrEqual(2);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({ id: started.body.id, name: 'json', status: 'completed' });
      expect(list.body.data[0].queries).toBeUndefined();
    });

    it('bad input is a 4xx naming the problem, and starts nothing', async () => {
      const before = (await call(rt.url, 'GET', '/knowledge/evals')).body.meta.total_count;
      const unknown = await call(rt.url, 'POST', '/knowledge/evals', { body: { queries: [{ query: 'alpha', relevant: ['d1', 'no-such-doc'] }] } });
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail).toMatch(/1 judged document matches no completed content .*"no-such-doc"/);
      const empty = await call(rt.url, 'POST', '/knowledge/evals', { body: { queries: [] } });
      expect(empty.status).toBe(422);
      expect(empty.body.detail).toMatch(/at least one labelled query/);
      const noRelevant = await call(rt.url, 'POST', '/knowledge/evals', { body: { queries: [{ query: 'alpha', relevant: [{ content: 'd1', grade: 0 }] }] } });
      expect(noRelevant.status).toBe(422);
      const shapeless = await call(rt.url, 'POST', '/knowledge/evals', { body: { queries: [{ query: 'alpha' }] } });
      expect(shapeless.status).toBe(422);
      const malformed = await form(rt.url, '/knowledge/evals', {}, { queries: QUERIES, qrels: 'q1 d1 1\n' });
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail).toMatch(/qrels line 1 must be "query-id<TAB>corpus-id<TAB>score"/);
      const badJson = await form(rt.url, '/knowledge/evals', {}, { queries: '{"_id": "q1", "text": \n', qrels: QRELS });
      expect(badJson.status).toBe(422);
      expect(badJson.body.detail).toMatch(/queries line 1 is not JSON/);
      const orphan = await form(rt.url, '/knowledge/evals', {}, { queries: QUERIES, qrels: 'q9\td1\t1\n' });
      expect(orphan.status).toBe(422);
      expect(orphan.body.detail).toMatch(/query "q9", which the queries file does not have/);
      const noFiles = await form(rt.url, '/knowledge/evals', { name: 'x' }, {});
      expect(noFiles.status).toBe(422);
      const badType = await form(rt.url, '/knowledge/evals', { search_types: 'semantic' }, { queries: QUERIES, qrels: QRELS });
      expect(badType.status).toBe(422);
      expect((await call(rt.url, 'GET', '/knowledge/evals/no-such-eval')).status).toBe(404);
      expect((await call(rt.url, 'GET', '/knowledge/evals')).body.meta.total_count).toBe(before);
    });

    it('an eval left queued with no job to run it reads failed, not queued forever', async () => {
      const db = database.open();
      try {
        const orphan = await new EvalStore(db).create({ knowledge_id: 'docs', name: null, user_id: null, search_types: ['keyword'], k: 10, recall_k: 100, queries: [] });
        const read = await call(rt.url, 'GET', `/knowledge/evals/${orphan.id}`);
        expect(read.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/no job left to finish it/) });
        expect((await call(rt.url, 'GET', '/knowledge/evals')).body.data.find((e: Json) => e.id === orphan.id)).toMatchObject({ status: 'failed' });
      } finally {
        await db.close();
      }
    });

    it('a runtime killed mid-eval: its restart takes the job over and completes it, never left running', async () => {
      // Only the child runs jobs while it lives.
      await rt.stop();
      const child = await startKnowledgeChild({ databaseUrl: database.url, embeddingsUrl: embeddings.url, knowledgePath });
      stops.push(child.kill);
      // 40 queries, each embedded twice (vector and hybrid) at 100 ms a call: several seconds of work.
      const queries = Array.from({ length: 40 }, (_, i) => ({ id: `k${i}`, query: `alpha particles number ${i}`, relevant: ['d1'] }));
      const started = await call(child.url, 'POST', '/knowledge/evals', { body: { queries } });
      expect(started.status).toBe(202);
      await eventually(async () => ((await call(child.url, 'GET', `/knowledge/evals/${started.body.id}`)).body.status === 'running' ? true : undefined), 20_000, 'the eval to run');
      await child.kill();
      rt = await startRuntimeOn(database, { knowledge: [testKnowledge(embeddings.url, knowledgePath, database.url)] });
      expect((await call(rt.url, 'GET', `/knowledge/evals/${started.body.id}`)).body.status).toBe('running');
      const done = await finished(rt.url, started.body.id);
      expect(done).toMatchObject({ status: 'completed', queries_done: 40, queries_total: 40, error: null });
      expect(done.results.keyword.ndcg).toBe(1);
    }, 90_000);
  });
}
