/**
 * `svc knowledge eval <folder>` against a REAL runtime on SQLite and on PostgreSQL, hosting a
 * knowledge base (embedder: a loopback OpenAI-compatible server) that holds four documents named
 * by their corpus ids. A BEIR folder made here is uploaded; the figures printed are checked
 * against values computed by hand for keyword search (only the documents holding a query's words
 * match it), the --min-ndcg gate passes (exit 0) and fails (exit 4), and bad folders or
 * judgments fail with a clear message (exit 1) or a usage error (exit 2).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testKnowledge } from '../../runtime/test/support/components.js';
import { testDatabaseKinds, type TestDatabase } from '../../runtime/test/support/databases.js';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../runtime/test/support/fake-embeddings.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { api, startRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
const DOCS: Record<string, string> = {
  d1: 'Alpha particles are helium nuclei emitted in radioactive decay.',
  d2: 'The bravo team practised the drill at dawn.',
  d3: 'Charlie wrote a letter about the harbour lights.',
  d4: 'The delta of the river floods every spring.',
};
const QUERIES = '{"_id": "q1", "text": "alpha particles"}\n{"_id": "q2", "text": "bravo drill"}\n{"_id": "q3", "text": "river floods"}\n';
const QRELS = 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq2\td3\t2\nq3\td1\t1\n';
// Keyword search finds q1 -> [d1], q2 -> [d2], q3 -> [d4]: nDCG@10 (1 + 1/(2 + 1/log2 3) + 0)/3, MRR@10 2/3, Recall@100 1/2.
const KEYWORD_NDCG = (1 + 1 / (2 + 1 / Math.log2(3))) / 3;

function folder(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`svc knowledge eval on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let database: TestDatabase;
    let rt: TestRuntime;
    let box: Sandbox;
    let dir: string;
    const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) =>
      runCli(['knowledge', 'eval', ...args, '--url', rt.url, '--poll-interval', '0.2'], { ...box, env, timeoutMs: 90_000 });

    beforeAll(async () => {
      await ensureBuilt();
      embeddings = await startFakeEmbeddings();
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-cli-eval-'));
      const knowledge = testKnowledge(embeddings.url, kind.kind === 'sqlite' ? join(dir, 'knowledge.db') : undefined, database.url);
      rt = await startRuntime({ knowledge: [knowledge], db: database.open(), env: { OS_SECURITY_KEY: KEY } });
      box = sandbox();
      for (const [name, text] of Object.entries(DOCS)) {
        const upload = await api(rt.url, 'POST', '/knowledge/content', { token: KEY, body: { name, text_content: text } });
        if (upload.status !== 202) throw new Error(`upload answered ${upload.status}`);
        for (let i = 0; i < 400; i++) {
          const s = await api(rt.url, 'GET', `/knowledge/content/${upload.body.id}/status`, { token: KEY });
          if (s.body.status === 'completed') break;
          if (s.body.status === 'failed' || i === 399) throw new Error(`upload of ${name} did not complete`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      folder(dir, 'good', { 'queries.jsonl': QUERIES, 'qrels/test.tsv': QRELS });
      folder(dir, 'malformed', { 'queries.jsonl': QUERIES, 'qrels/test.tsv': 'q1 d1 1\n' });
      folder(dir, 'unknown', { 'queries.jsonl': QUERIES, 'qrels/test.tsv': 'q1\td1\t1\nq2\tmissing-doc\t1\n' });
      folder(dir, 'two-splits', { 'queries.jsonl': QUERIES, 'qrels/train.tsv': QRELS, 'qrels/dev.tsv': QRELS });
    }, 90_000);
    afterAll(async () => {
      await rt?.stop();
      box?.cleanup();
      await database?.cleanup();
      await embeddings?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('--json: uploads the folder, waits, prints the figures; --min-ndcg met exits 0', async () => {
      const r = await run([join(dir, 'good'), '--json', '--search-type', 'keyword', '--min-ndcg', '0.4']);
      expect(r.code).toBe(0);
      const body = jsonOf(r) as Record<string, any>;
      expect(body).toMatchObject({ status: 'completed', queries_total: 3, queries_done: 3, k: 10, recall_k: 100 });
      expect(body.results.keyword.ndcg).toBeCloseTo(KEYWORD_NDCG, 10);
      expect(body.results.keyword.mrr).toBeCloseTo(2 / 3, 10);
      expect(body.results.keyword.recall).toBeCloseTo(0.5, 10);
      expect(Object.keys(body.results).sort()).toEqual(['hybrid', 'keyword', 'vector']);
      expect(body.gate).toEqual({ search_type: 'keyword', min_ndcg: 0.4, ndcg: body.results.keyword.ndcg, passed: true });
      // The eval is the runtime's record, listed by the API.
      const listed = await api(rt.url, 'GET', '/knowledge/evals', { token: KEY });
      expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(body.id);
    });

    it('human: the table on stdout; --min-ndcg missed exits 4 and says so on stderr', async () => {
      const r = await run([join(dir, 'good'), '--search-type', 'keyword', '--min-ndcg', '0.9', '--k', '5']);
      expect(r.code).toBe(4);
      expect(r.stdout).toMatch(/search type\s+nDCG@5\s+MRR@5\s+Recall@100/);
      expect(r.stdout).toMatch(new RegExp(`keyword\\s+${KEYWORD_NDCG.toFixed(3)}\\s+0\\.667\\s+0\\.500`));
      expect(r.stderr).toContain(`keyword nDCG@5 ${KEYWORD_NDCG.toFixed(3)} is below --min-ndcg 0.9`);
      // Default: the gate reads hybrid.
      const hybrid = await run([join(dir, 'good'), '--min-ndcg', '0']);
      expect(hybrid.code).toBe(0);
      expect(hybrid.stdout).toMatch(/hybrid nDCG@10 \d\.\d{3} meets --min-ndcg 0/);
    });

    it('bad folders and judgments fail clearly (exit 1), bad options are usage errors (exit 2)', async () => {
      const malformed = await run([join(dir, 'malformed'), '--json']);
      expect(malformed.code).toBe(1);
      expect(jsonOf(malformed).error).toMatch(/refused the eval: qrels line 1 must be "query-id<TAB>corpus-id<TAB>score"/);
      const unknown = await run([join(dir, 'unknown'), '--json']);
      expect(unknown.code).toBe(1);
      expect(jsonOf(unknown).error).toMatch(/matches no completed content .*"missing-doc"/);
      const missing = await run([join(dir, 'nowhere'), '--json']);
      expect(missing.code).toBe(1);
      expect(jsonOf(missing).error).toMatch(/is not a folder/);
      const ambiguous = await run([join(dir, 'two-splits'), '--json']);
      expect(ambiguous.code).toBe(1);
      expect(jsonOf(ambiguous)).toMatchObject({ error: expect.stringMatching(/several \.tsv files/), hint: expect.stringContaining('--qrels') });
      const chosen = await run([join(dir, 'two-splits'), '--qrels', join(dir, 'two-splits', 'qrels', 'dev.tsv'), '--json', '--search-type', 'keyword']);
      expect(chosen.code).toBe(0);
      const noKey = await run([join(dir, 'good'), '--json'], {});
      expect(noKey.code).toBe(1);
      expect(jsonOf(noKey).error).toMatch(/requires a credential/);
      const badGate = await run([join(dir, 'good'), '--min-ndcg', '2']);
      expect(badGate.code).toBe(2);
      expect(badGate.stderr).toMatch(/Invalid --min-ndcg: 2/);
      const badType = await run([join(dir, 'good'), '--search-type', 'semantic']);
      expect(badType.code).toBe(2);
    });
  });
}
