/**
 * The hostile-content suite: every class of content that once crashed, stalled or bloated the
 * runtime (zip, XML, image and PDF bombs; deep nesting; huge flat documents; million-row tables;
 * SSRF address forms) is sent, one after another, to one real runtime process on each store,
 * as a user would send it. For each: the record ends as the case says (a failure naming the
 * limit and its setting), `/health` answered every 20 ms within 100 ms throughout, and nothing
 * refused was fetched. Over the whole run: the runtime with its worker processes stayed under
 * its idle size + 1 GB, it never exited or restarted, and no record is left `processing`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startChildRuntime, type ChildRuntime } from '../packages/runtime/test/support/child-runtime.js';
import { testDatabaseKinds, type TestDatabase } from '../packages/runtime/test/support/databases.js';
import { tarArchive } from '../packages/runtime/test/support/converter-fixtures.js';
import { eventually } from '../packages/runtime/test/support/eventually.js';
import { startFakeEmbeddings, type FakeEmbeddings } from '../packages/runtime/test/support/fake-embeddings.js';
import { call, type Reply } from '../packages/runtime/test/support/http.js';
import { servePages, type PageServer } from '../packages/runtime/test/support/hostile-inputs.js';
import { upload } from '../packages/runtime/test/support/knowledge-content.js';
import { docxWithParagraphs, pdfWithPages } from '../packages/runtime/test/support/office-fixtures.js';
import { probeHealth, type HealthProbe } from '../packages/runtime/test/support/loop-probe.js';
import type { HostileCase, PageOrigins } from './support/case.js';
import { fileCases } from './support/file-cases.js';
import { textCases } from './support/text-cases.js';
import { hostilePages, pointRedirects, urlCases } from './support/url-cases.js';
import { memorySampler } from './support/watch.js';

const HEALTH_BUDGET_MS = 100;
const MEMORY_BUDGET_MIB = 1024;
const PAGES_HOST = 'pages.hostile.test';
const cases: HostileCase[] = [...fileCases, ...textCases, ...urlCases];

type Json = Record<string, any>;

const text = (t: string) => new Uint8Array(Buffer.from(t));

/** One small, well-formed file of each reader family the cases use. */
function friendlyFiles(): { name: string; bytes: Uint8Array }[] {
  return [
    { name: 'warm.txt', bytes: text('A first, friendly document.') },
    { name: 'warm.md', bytes: text('# Warm\n\nA friendly page.') },
    { name: 'warm.html', bytes: text('<!doctype html><html><body><h1>Warm</h1><p>A friendly page.</p></body></html>') },
    { name: 'warm.json', bytes: text('[{"id": 1, "name": "friendly"}]') },
    { name: 'warm.csv', bytes: text('id,name\n1,friendly\n') },
    { name: 'warm.docx', bytes: docxWithParagraphs(['A friendly paragraph.']) },
    { name: 'warm.pdf', bytes: pdfWithPages([['A friendly page.']]) },
    { name: 'warm.tar.gz', bytes: tarArchive([{ path: 'notes.txt', data: 'A friendly archived note.' }]) },
  ];
}

interface Measured {
  name: string;
  status: string;
  seconds: number;
  healthMaxMs: number;
  peakMiB: number;
  message: string;
}

/** Sends a case as a user would; a refusal at the door counts as the record failing. */
async function send(base: string, c: HostileCase, origins: PageOrigins): Promise<{ reply: Reply; bytes?: number }> {
  const s = c.send;
  if (s.kind === 'file') {
    const bytes = await s.bytes();
    return { reply: await upload(base, '/knowledge/content', { file: new Blob([bytes]) }, s.name), bytes: bytes.length };
  }
  if (s.kind === 'text') return { reply: await call(base, 'POST', '/knowledge/content', { body: { name: s.name, text_content: s.text(), ...(s.reader ? { reader_id: s.reader } : {}) } }) };
  return { reply: await call(base, 'POST', '/knowledge/content', { body: { url: s.url(origins), ...(s.reader ? { reader_id: s.reader } : {}) } }) };
}

async function outcome(base: string, reply: Reply): Promise<{ status: string; message: string }> {
  if (reply.status !== 202) return { status: reply.status < 500 ? 'failed' : `http ${reply.status}`, message: String((reply.body as Json)?.detail ?? JSON.stringify(reply.body)) };
  const id = (reply.body as Json).id as string;
  const done = await eventually(
    async () => {
      const status = (await call(base, 'GET', `/knowledge/content/${id}/status`)).body as Json;
      return status.status === 'processing' ? undefined : status;
    },
    150_000,
    `content ${id} to leave processing`,
  );
  return { status: done.status as string, message: String(done.status_message ?? '') };
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`hostile content against a runtime on ${kind.kind}`, () => {
    let embeddings: FakeEmbeddings;
    let database: TestDatabase;
    let pages: PageServer;
    let runtime: ChildRuntime;
    let dir: string;
    let exited: string | undefined;
    let idleMiB = 0;
    let probe: HealthProbe;
    let memory: ReturnType<typeof memorySampler>;
    const measured: Measured[] = [];

    beforeAll(async () => {
      embeddings = await startFakeEmbeddings();
      database = await kind.create();
      dir = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
      const served = { ...hostilePages };
      pages = await servePages(served);
      pointRedirects(served, pages.port);
      runtime = await startChildRuntime({
        DATABASE_URL: database.url,
        EMBEDDINGS_URL: embeddings.url,
        ...(kind.kind === 'sqlite' ? { KNOWLEDGE_PATH: join(dir, 'knowledge.db') } : {}),
        FAKE_LLM_URL: 'http://127.0.0.1:9',
        URL_HOSTS: JSON.stringify({ [PAGES_HOST]: '127.0.0.1' }),
        // As large as an upload may be (the knowledge limit), so the million-row tables reach
        // the readers' budgets instead of stopping at the 10 MiB request default.
        MAX_REQUEST_BODY_BYTES: String(50 * 1024 * 1024),
        PORT: String(await freePort()),
      });
      runtime.process.once('exit', (code, signal) => (exited = `exit ${code ?? signal}`));
      // Idle is measured once the runtime has read one friendly file of each family (its worker
      // pool started, each reader's modules loaded: a first use loads them on the main thread,
      // tens of ms under tsx, whatever the file), so what is measured is what hostile content
      // adds, not the cost of a first upload.
      for (const friendly of friendlyFiles()) {
        const warm = await upload(runtime.url, '/knowledge/content', { file: new Blob([friendly.bytes]) }, friendly.name);
        const warmed = await outcome(runtime.url, warm);
        if (warmed.status !== 'completed') throw new Error(`the friendly ${friendly.name} ended ${warmed.status}: ${warmed.message}`);
      }
      memory = memorySampler(runtime.process.pid!);
      await new Promise((r) => setTimeout(r, 500));
      idleMiB = Math.max(...memory.samples.slice(-10).map((s) => s.total));
      probe = probeHealth(runtime.url);
      await probe.ready;
      await eventually(() => (probe.answers.length > 5 ? true : undefined), 10_000, 'the health probe to answer');
    }, 120_000);

    afterAll(async () => {
      memory?.stop();
      await probe?.stop();
      await runtime?.kill();
      await pages?.close();
      await database?.cleanup();
      await embeddings?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (measured.length > 0) {
        const rows = measured.map((m) => `${m.name.padEnd(72)} ${m.status.padEnd(9)} ${m.seconds.toFixed(1).padStart(6)} s  health max ${m.healthMaxMs.toFixed(1).padStart(6)} ms  peak +${Math.round(m.peakMiB - idleMiB)} MiB  ${m.message.slice(0, 160)}`);
        process.stdout.write(`hostile content on ${kind.kind} (idle ${Math.round(idleMiB)} MiB):\n${rows.join('\n')}\n`);
      }
    });

    for (const c of cases) {
      it(`${c.class}: ${c.name}`, async () => {
        const origins: PageOrigins = { allowed: `http://${PAGES_HOST}:${pages.port}`, port: pages.port };
        const start = Date.now();
        const { reply } = await send(runtime.url, c, origins);
        const result = await outcome(runtime.url, reply);
        // A moment after the end, so an answer delayed by the last of the work is counted.
        await new Promise((r) => setTimeout(r, 100));
        const end = Date.now();
        const answers = probe.between(start, end);
        const slowest = Math.max(0, ...answers.map((a) => a.ms ?? Number.POSITIVE_INFINITY));
        measured.push({ name: c.name, status: result.status, seconds: (end - start) / 1000, healthMaxMs: slowest, peakMiB: memory.peak(start, end).total, message: result.message });

        expect(result.status, result.message).toBe(c.expect.status);
        expect(result.message).toMatch(c.expect.message);
        for (const path of c.neverFetched ?? []) expect(pages.hits.get(path) ?? 0, `${path} was fetched`).toBe(0);
        expect(answers.filter((a) => a.ms === undefined), 'health requests that failed').toEqual([]);
        expect(slowest, 'slowest /health answer (ms)').toBeLessThan(HEALTH_BUDGET_MS);
        expect(exited).toBeUndefined();
      }, 180_000);
    }

    it('the runtime never exited, stayed under idle + 1 GB, and left nothing processing', async () => {
      expect(exited).toBeUndefined();
      const peak = memory.peak();
      expect(peak.total - idleMiB, `peak ${Math.round(peak.total)} MiB over idle ${Math.round(idleMiB)} MiB`).toBeLessThan(MEMORY_BUDGET_MIB);
      const records: Json[] = [];
      for (let page = 1; ; page++) {
        const body = (await call(runtime.url, 'GET', `/knowledge/content?limit=100&page=${page}`)).body as Json;
        records.push(...(body.data as Json[]));
        if (page >= body.meta.total_pages) break;
      }
      expect(records.length).toBeGreaterThan(cases.filter((c) => c.send.kind !== 'url').length);
      expect(records.filter((r) => r.status === 'processing')).toEqual([]);
      // Still useful: a plain document goes in and is found.
      const after = await call(runtime.url, 'POST', '/knowledge/content', { body: { name: 'after.txt', text_content: 'The runtime survived every hostile file.' } });
      expect(await outcome(runtime.url, after)).toMatchObject({ status: 'completed' });
      const hits = (await call(runtime.url, 'POST', '/knowledge/search', { body: { query: 'survived hostile', search_type: 'keyword' } })).body as Json;
      expect((hits.data as Json[]).map((h) => h.name)).toContain('after');
    }, 60_000);
  });
}
