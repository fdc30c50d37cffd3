/**
 * @module bench/hostile-ingest
 * Hostile uploads against a running runtime (SQLite, no embedder), one at a time: how each ends
 * (status and message), how long it took, how responsive the runtime stayed meanwhile (`/health`
 * asked every 20 ms from another process, and the event-loop delay inside), and how far the
 * process's memory rose over idle. Nothing is downloaded: every input is generated.
 *
 *   npx tsx --conditions=source bench/hostile-ingest.ts                 # every case
 *   BENCH_HOSTILE=nested-2000-url,json-1m npx tsx --conditions=source bench/hostile-ingest.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Knowledge } from '../packages/runtime/src/knowledge/knowledge.js';
import { SqliteVectorStore } from '../packages/runtime/src/knowledge/vector-stores/sqlite/store.js';
import { Runtime } from '../packages/runtime/src/runtime.js';
import { openDb } from '../packages/runtime/src/storage/open-db.js';
import { silentLogger } from '../packages/runtime/src/util/logger.js';
import { csvRows, flatHtml, jsonArray, nestedHtml, nestedJson, repeatedSlideDeck, servePages, type Page } from '../packages/runtime/test/support/hostile-inputs.js';
import { probeEventLoop, probeHealth, type LatencyFigures } from '../packages/runtime/test/support/loop-probe.js';

interface Case {
  name: string;
  /** A file to upload, or a path of the page server to ingest by URL. */
  file?: () => Promise<{ name: string; type: string; bytes: Uint8Array | string }>;
  url?: string;
}

const PAGES: Record<string, Page> = {
  '/nested-2000.html': { type: 'text/html', body: () => nestedHtml(2000) },
  '/nested-100000.html': { type: 'text/html', body: () => nestedHtml(100_000) },
  '/flat-9.5mb.html': { type: 'text/html', body: () => flatHtml(9.5e6) },
  '/huge-50mb.html': { type: 'text/html', body: () => flatHtml(50e6) },
};

const file = (name: string, type: string, make: () => string | Uint8Array | Promise<Uint8Array>) => async () => ({ name, type, bytes: await make() });

const CASES: Case[] = [
  { name: 'nested-2000-file', file: file('nested.html', 'text/html', () => nestedHtml(2000)) },
  { name: 'nested-2000-url', url: '/nested-2000.html' },
  { name: 'nested-100000-file', file: file('nested.html', 'text/html', () => nestedHtml(100_000)) },
  { name: 'nested-100000-url', url: '/nested-100000.html' },
  { name: 'flat-9.5mb-file', file: file('flat.html', 'text/html', () => flatHtml(9.5e6)) },
  { name: 'flat-9.5mb-url', url: '/flat-9.5mb.html' },
  { name: 'page-50mb-url', url: '/huge-50mb.html' },
  { name: 'pptx-1000-slides', file: file('deck.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', () => repeatedSlideDeck(1000)) },
  { name: 'json-1m', file: file('items.json', 'application/json', () => jsonArray(1_000_000)) },
  { name: 'json-100k', file: file('items.json', 'application/json', () => jsonArray(100_000)) },
  { name: 'json-deep-100000', file: file('deep.json', 'application/json', () => nestedJson(100_000)) },
  { name: 'csv-1m', file: file('rows.csv', 'text/csv', () => csvRows(1_000_000)) },
];

export interface HostileFigure {
  name: string;
  status: string;
  message: string | null;
  seconds: number;
  health: LatencyFigures;
  loop: LatencyFigures;
  /** Peak RSS over the idle RSS, MB. */
  rssMb: number;
}

const pair = (f: LatencyFigures) => `${f.p99.toFixed(0)}/${f.max.toFixed(0)}`;

export async function benchHostile(only?: readonly string[], write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<HostileFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-hostile-'));
  const pages = await servePages(PAGES);
  const store = new SqliteVectorStore({ path: join(dir, 'knowledge.db') });
  const knowledge = new Knowledge({ id: 'docs', store, urlFetch: { allowPrivateHosts: true } });
  const runtime = new Runtime({ env: { MAX_REQUEST_BODY_BYTES: String(60 * 1024 * 1024) }, db: openDb(join(dir, 'runtime.db')), knowledge: [knowledge] }, { logger: silentLogger });
  const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
  const out: HostileFigure[] = [];
  const settle = async (id: string, deadline: number) => {
    for (;;) {
      // A stalled server may drop a kept-alive connection: ask again.
      const record = await fetch(`${server.url}/knowledge/content/${id}/status`)
        .then((r) => r.json() as Promise<{ status: string; status_message: string | null }>)
        .catch(() => ({ status: 'processing', status_message: null }));
      if (record.status !== 'processing' || Date.now() > deadline) return record;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    write(`${'case'.padEnd(20)} ${'status'.padEnd(10)} ${'s'.padStart(6)} ${'health p99/max ms'.padStart(18)} ${'loop p99/max ms'.padStart(16)} ${'RSS+MB'.padStart(7)}  message`);
    for (const c of CASES) {
      if (only && !only.includes(c.name)) continue;
      const input = c.file ? await c.file() : undefined;
      global.gc?.();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const idleRss = process.memoryUsage().rss;
      let peak = idleRss;
      const memory = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
      // Built before probing: encoding a 27 MB string is this process's cost, not the runtime's.
      const form = new FormData();
      if (input) form.append('file', new Blob([input.bytes], { type: input.type }), input.name);
      const health = probeHealth(server.url);
      await health.ready;
      const loop = probeEventLoop();
      const started = performance.now();
      let response: Response;
      if (input) {
        response = await fetch(`${server.url}/knowledge/content`, { method: 'POST', body: form });
      } else {
        response = await fetch(`${server.url}/knowledge/content`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `${pages.url}${c.url}` }) });
      }
      const accepted = (await response.json()) as { id?: string; detail?: string };
      const record = accepted.id ? await settle(accepted.id, Date.now() + 600_000) : { status: `HTTP ${response.status}`, status_message: accepted.detail ?? null };
      const seconds = (performance.now() - started) / 1000;
      const loopFigures = await loop.stop();
      const healthFigures = await health.stop();
      clearInterval(memory);
      const figure = { name: c.name, status: record.status, message: record.status_message, seconds, health: healthFigures, loop: loopFigures, rssMb: (peak - idleRss) / 1e6 };
      out.push(figure);
      write(`${c.name.padEnd(20)} ${record.status.padEnd(10)} ${seconds.toFixed(1).padStart(6)} ${pair(healthFigures).padStart(18)} ${pair(loopFigures).padStart(16)} ${figure.rssMb.toFixed(0).padStart(7)}  ${(record.status_message ?? '').slice(0, 160)}`);
      if (accepted.id) await fetch(`${server.url}/knowledge/content/${accepted.id}`, { method: 'DELETE' });
    }
  } finally {
    await server.close();
    await store.close();
    await pages.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHostile(process.env.BENCH_HOSTILE?.split(',').filter(Boolean));
}
