/**
 * The README's knowledge walkthrough, as a user runs it: `npm start` with no API key, then each
 * file of the sample corpus uploaded with a plain multipart POST (no knowledge_id: the writable
 * `library` is the only base that takes content). Every upload completes with the reader its
 * extension picks (the record's `type`), a keyword search for the sample's phrase finds that file's passage,
 * and a question asked in other words than the passage's ("how do I collect rain water") finds the
 * rainwater cistern by hybrid search: the local sentence encoder embeds with no key.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, SAMPLES_DIR, writeGeneratedSamples } from '../src/samples.js';
import { freePort, start, waitFor, type Proc } from './process.js';

let cwd: string;
let generated: string;
let proc: Proc;
let base: string;

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'svc-samples-'));
  // The same writer `npm run samples` uses, into a scratch directory so the test needs no build.
  generated = join(cwd, 'generated');
  await writeGeneratedSamples(generated);
  const port = await freePort();
  proc = start({ PORT: String(port) }, cwd);
  await waitFor(() => proc.stdout.includes('\n'), proc);
  base = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  if (proc && proc.child.exitCode === null) {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
  rmSync(cwd, { recursive: true, force: true });
});

async function json(path: string, init?: RequestInit): Promise<any> {
  const res = await fetch(`${base}${path}`, init);
  const body = await res.json();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function completed(id: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const status = await json(`/knowledge/content/${id}/status`);
    if (status.status !== 'processing') return json(`/knowledge/content/${id}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`content ${id} is still processing`);
}

const flat = (text: string) => text.replace(/\s+/g, ' ').toLowerCase();

describe('the sample corpus through npm start, with no API key', () => {
  it('has the committed text samples, and writes the PDF and Office ones', () => {
    for (const sample of SAMPLES) {
      const dir = sample.generated ? generated : SAMPLES_DIR;
      expect(existsSync(join(dir, sample.file)), sample.file).toBe(true);
    }
    expect(new Set(SAMPLES.map((s) => s.file.split('.').pop()))).toEqual(new Set(['md', 'csv', 'json', 'pdf', 'docx', 'xlsx', 'pptx']));
    // The build writes them, and git ignores exactly those, so no binary sample is committed.
    const pkg = JSON.parse(readFileSync(join(SAMPLES_DIR, '../package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toMatch(/&& node dist\/make-samples\.js$/);
    const ignored = readFileSync(join(SAMPLES_DIR, '.gitignore'), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
    expect(ignored.sort()).toEqual(SAMPLES.filter((s) => s.generated).map((s) => s.file).sort());
  });

  it('uploads one sample of each format, each completes, and searching its phrase finds it', async () => {
    const uploads: { file: string; reader: string; phrase: string; id: string }[] = [];
    for (const sample of SAMPLES) {
      const form = new FormData();
      form.append('file', new Blob([readFileSync(join(sample.generated ? generated : SAMPLES_DIR, sample.file))]), sample.file);
      const res = await fetch(`${base}/knowledge/content`, { method: 'POST', body: form });
      const body: any = await res.json();
      expect([res.status, body.status], sample.file).toEqual([202, 'processing']);
      uploads.push({ ...sample, id: body.id });
    }

    for (const upload of uploads) {
      const record = await completed(upload.id);
      expect(record, upload.file).toMatchObject({ name: upload.file, status: 'completed', type: upload.reader });
    }
    expect((await json('/knowledge/content?knowledge_id=library')).meta.total_count).toBe(SAMPLES.length);

    for (const upload of uploads) {
      const found = await json('/knowledge/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: upload.phrase, search_type: 'keyword', max_results: 3 }),
      });
      const [best] = found.data;
      expect(best?.content_id, `${upload.phrase} -> ${upload.file}`).toBe(upload.id);
      expect(flat(best.content)).toContain(upload.phrase);
      // Hybrid search (the default) finds an exact phrase first too: the fusion weights keyword
      // matches so a weak embedder's neighbours do not outvote them (with RRF, two did).
      const hybrid = await json('/knowledge/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: upload.phrase, search_type: 'hybrid', max_results: 3 }),
      });
      expect(hybrid.data[0]?.content_id, `hybrid: ${upload.phrase} -> ${upload.file}`).toBe(upload.id);
    }
    // No word of the question is in the passage ("rain" is not "rainwater"): keywords alone find the watering can.
    const cistern = uploads.find((u) => u.phrase === 'rainwater cistern')!;
    const question = await json('/knowledge/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'how do I collect rain water', search_type: 'hybrid', max_results: 3 }),
    });
    expect(question.data.map((hit: { content_id: string }) => hit.content_id)).toContain(cistern.id);
    // Stored in a file of its own under the data directory, beside the runtime's database.
    expect(existsSync(join(cwd, 'data', 'knowledge.db'))).toBe(true);
  });

  it('keeps the bundled docs apart: read-only, and reading markdown only', async () => {
    const res = await fetch(`${base}/knowledge/content?knowledge_id=runtime-docs`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain('is read-only');
    const config = await json('/knowledge/config?knowledge_id=runtime-docs');
    expect(Object.keys(config.readers)).toEqual(['markdown']);
  });
});
