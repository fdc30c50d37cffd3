/**
 * Hostile content end to end against a runtime in a process of its own (so building and sending
 * the uploads never runs on the measured event loop), with `/health` asked every 20 ms from a
 * third process throughout each upload: HTML nested 100,000 deep, a 9.5 MB flat page, a JSON
 * array of a million items and a CSV of a million rows uploaded; a page nested 2,000 deep and
 * one over KNOWLEDGE_MAX_PAGE_BYTES fetched by URL from a loopback server. Every `/health`
 * answers within 100 ms, and every record ends `completed` or `failed` naming the limit it
 * breached and that limit's variable (issue 26: the main thread never parses what a caller sent).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildRuntime, type ChildRuntime } from './support/child-runtime.js';
import { csvRows, flatHtml, jsonArray, nestedHtml, servePages, type PageServer } from './support/hostile-inputs.js';
import { probeHealth, type LatencyFigures } from './support/loop-probe.js';

/** The target for any request while content is ingested. */
const HEALTH_MAX_MS = 100;
/** A case ends well within this even on two shared cores (the 9.5 MB page takes longest). */
const CASE_TIMEOUT_MS = 240_000;

interface Ended {
  status: string;
  status_message: string | null;
  seconds: number;
  health: LatencyFigures;
}

let dir: string;
let runtime: ChildRuntime;
let pages: PageServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
  // Generated once, before any measuring: the page server is in this process.
  const nested = nestedHtml(2000);
  const oversized = flatHtml(11 * 1024 * 1024);
  pages = await servePages({ '/nested.html': { type: 'text/html', body: nested }, '/oversized.html': { type: 'text/html', body: oversized } });
  runtime = await startChildRuntime(
    { DATABASE_URL: join(dir, 'runtime.db'), KNOWLEDGE_PATH: join(dir, 'knowledge.db'), MAX_REQUEST_BODY_BYTES: String(60 * 1024 * 1024) },
    new URL('./support/hostile-runtime.ts', import.meta.url),
  );
}, 60_000);

afterAll(async () => {
  await runtime?.kill();
  await pages?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function settle(id: string): Promise<{ status: string; status_message: string | null }> {
  const deadline = Date.now() + CASE_TIMEOUT_MS;
  for (;;) {
    const record = (await (await fetch(`${runtime.url}/knowledge/content/${id}/status`)).json()) as { status: string; status_message: string | null };
    if (record.status !== 'processing' || Date.now() > deadline) return record;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends `body` to POST /knowledge/content while probing /health, and waits for the record to end. */
async function ingest(label: string, body: FormData | string): Promise<Ended> {
  const health = probeHealth(runtime.url);
  await health.ready;
  const started = performance.now();
  const init = typeof body === 'string' ? { headers: { 'content-type': 'application/json' }, body } : { body };
  const response = await fetch(`${runtime.url}/knowledge/content`, { method: 'POST', ...init });
  const accepted = (await response.json()) as { id?: string; detail?: string };
  expect(response.status, accepted.detail).toBe(202);
  const record = await settle(accepted.id!);
  const seconds = (performance.now() - started) / 1000;
  const figures = await health.stop();
  // The figures the issue asks for, in the test log whatever the outcome.
  process.stdout.write(`hostile ${label}: ${record.status} in ${seconds.toFixed(1)} s; /health n=${figures.samples} p50=${figures.p50.toFixed(1)} p99=${figures.p99.toFixed(1)} max=${figures.max.toFixed(1)} ms\n`);
  await fetch(`${runtime.url}/knowledge/content/${accepted.id}`, { method: 'DELETE' });
  return { ...record, seconds, health: figures };
}

function file(name: string, type: string, text: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([text], { type }), name);
  return form;
}

describe('hostile content while /health is asked every 20 ms', () => {
  it(
    'HTML nested 100,000 deep fails naming KNOWLEDGE_MAX_DEPTH',
    async () => {
      const ended = await ingest('nested-100000-html', file('nested.html', 'text/html', nestedHtml(100_000)));
      expect(ended.status).toBe('failed');
      expect(ended.status_message).toBe('"nested.html" nests elements more than 256 levels deep (KNOWLEDGE_MAX_DEPTH)');
      expect(ended.health.samples).toBeGreaterThan(0);
      expect(ended.health.max).toBeLessThan(HEALTH_MAX_MS);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a 9.5 MB flat page is read and chunked off the main thread and completes',
    async () => {
      const ended = await ingest('flat-9.5mb-html', file('flat.html', 'text/html', flatHtml(9.5e6)));
      expect(ended.status, ended.status_message ?? '').toBe('completed');
      expect(ended.health.max).toBeLessThan(HEALTH_MAX_MS);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a JSON array of a million items fails naming KNOWLEDGE_MAX_DOCUMENTS',
    async () => {
      const ended = await ingest('json-1m', file('items.json', 'application/json', jsonArray(1_000_000)));
      expect(ended.status).toBe('failed');
      expect(ended.status_message).toBe('"items.json" makes more than 100000 documents (KNOWLEDGE_MAX_DOCUMENTS)');
      expect(ended.health.max).toBeLessThan(HEALTH_MAX_MS);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a CSV of a million rows fails naming KNOWLEDGE_MAX_CHUNKS before it is chunked',
    async () => {
      const ended = await ingest('csv-1m', file('rows.csv', 'text/csv', csvRows(1_000_000)));
      expect(ended.status).toBe('failed');
      expect(ended.status_message).toBe('"rows.csv" makes more than 250000 chunks (KNOWLEDGE_MAX_CHUNKS)');
      expect(ended.health.max).toBeLessThan(HEALTH_MAX_MS);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a page nested 2,000 deep fetched by URL fails naming KNOWLEDGE_MAX_DEPTH',
    async () => {
      const ended = await ingest('nested-2000-url', JSON.stringify({ url: `${pages.url}/nested.html` }));
      expect(ended.status).toBe('failed');
      expect(ended.status_message).toBe('"nested.html" nests elements more than 256 levels deep (KNOWLEDGE_MAX_DEPTH)');
      expect(ended.health.max).toBeLessThan(HEALTH_MAX_MS);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a page over KNOWLEDGE_MAX_PAGE_BYTES fetched by URL fails naming it',
    async () => {
      const url = `${pages.url}/oversized.html`;
      const ended = await ingest('page-11mb-url', JSON.stringify({ url }));
      expect(ended.status).toBe('failed');
      expect(ended.status_message).toBe(`${url} is larger than the page limit of 10485760 bytes (KNOWLEDGE_MAX_PAGE_BYTES)`);
      expect(ended.health.max).toBeLessThan(HEALTH_MAX_MS);
    },
    CASE_TIMEOUT_MS,
  );
});
