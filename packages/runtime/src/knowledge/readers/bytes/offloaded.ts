/**
 * @module knowledge/readers/bytes/offloaded
 * Byte readers read in a worker of the pool, so the main thread never parses what a caller
 * sent: each exports a `readInline` task, the same reader constructed inline, which reads the
 * bytes moved there and checks the budgets (ReadOptions.limits) as it reads. pdf, docx, excel,
 * pptx and html always go there (a worker process); json, csv, field_labeled_csv, markdown and
 * text once their input is INLINE_MAX_BYTES or more (below it reading takes well under a
 * millisecond, less than the round trip). Many documents come back packed (knowledge/packed.ts) and are rebuilt a slice at a
 * time. A reader already running in a worker (the converter's) reads inline there.
 */
import { checkDocuments, type ReadLimits } from '../../limits.js';
import { packRecords, unpackRecords, type PackedRecords } from '../../packed.js';
import type { Document, ReaderInput } from '../../types.js';
import type { ReadOptions } from '../reader.js';
import { inPoolWorker } from '../../../workers/in-worker.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import type { WorkerPool } from '../../../workers/pool.js';
import { defineWorkerTask } from '../../../workers/task.js';

/** The byte readers that can read in a worker. */
export type OffloadedReader = 'pdf' | 'docx' | 'excel' | 'pptx' | 'html' | 'json' | 'csv' | 'field_labeled_csv' | 'markdown' | 'text';

// Each reader's module, addressed by URL: the worker imports it, this module does not. Every
// reader runs in a worker process, whose resident memory the pool bounds: a thread's heap limit
// sees neither what zip inflation and native parsers allocate outside it nor, at its 2 GB
// default, keeps two busy threads inside the process's 1 GB budget (a million-row CSV took
// ~400 MB in one).
const ISOLATED = { isolation: 'process' } as const;
const TASKS: Record<OffloadedReader, string> = {
  pdf: defineWorkerTask('read:pdf', import.meta.url, './pdf.js', 'readInline', ISOLATED),
  docx: defineWorkerTask('read:docx', import.meta.url, './docx.js', 'readInline', ISOLATED),
  excel: defineWorkerTask('read:excel', import.meta.url, './excel.js', 'readInline', ISOLATED),
  pptx: defineWorkerTask('read:pptx', import.meta.url, './pptx.js', 'readInline', ISOLATED),
  html: defineWorkerTask('read:html', import.meta.url, './html.js', 'readInline', ISOLATED),
  json: defineWorkerTask('read:json', import.meta.url, './json.js', 'readInline', ISOLATED),
  csv: defineWorkerTask('read:csv', import.meta.url, './csv.js', 'readInline', ISOLATED),
  field_labeled_csv: defineWorkerTask('read:field_labeled_csv', import.meta.url, './field-labeled-csv.js', 'readInline', ISOLATED),
  markdown: defineWorkerTask('read:markdown', import.meta.url, './markdown.js', 'readInline', ISOLATED),
  text: defineWorkerTask('read:text', import.meta.url, './text.js', 'readInline', ISOLATED),
};

/**
 * Below this many bytes the text readers (json, csv, field_labeled_csv, markdown, text) read on
 * the calling thread. Measured (2 shared cores): 64 KiB of JSON parses and re-serialises in
 * ~1 ms, of CSV in ~1-2 ms; a task's round trip to a warm worker is ~1 ms.
 */
export const INLINE_MAX_BYTES = 64 * 1024;

export interface ReadPayload {
  /** The reader's constructor options (plain data). */
  options?: Record<string, unknown> | undefined;
  name: string;
  data: string | Uint8Array;
  /** The budgets the reader checks as it reads. */
  limits?: ReadLimits | undefined;
  /** A crawl's page URL: the reader answers the page's same-host links too (html). */
  linksOf?: string | undefined;
}

/** What a reader's task answers: its documents (packed when many), and a page's links when asked. */
export interface ReadReply {
  documents: Document[] | PackedRecords;
  links?: string[] | undefined;
}

/**
 * Where a reader configured with `offload` reads: the process's pool unless told otherwise,
 * and always inline in a pool worker, thread or process (a reader the converter calls there is
 * already off the main thread; see workers/in-worker.ts).
 */
export function offloadFor(offload: Offload | undefined): Offload {
  return inPoolWorker() ? 'inline' : (offload ?? sharedOffload());
}

/** Whether a text reader given `input` should read in the pool (a string counts its characters). */
export function large(input: ReaderInput): boolean {
  return (typeof input.data === 'string' ? input.data.length : input.data.byteLength) >= INLINE_MAX_BYTES;
}

/** A reader task's reply: its documents, packed when there are many. */
export function reply(documents: Document[], links?: string[]): ReadReply {
  return { documents: documents.length >= 64 ? packRecords(documents) : documents, ...(links ? { links } : {}) };
}

/**
 * Reads `input` with the reader `id` in a worker process of `pool`. The bytes go as they are:
 * the IPC channel serialises only a view's own bytes (a copy to move them, as a thread needs,
 * held the loop ~20 ms for 14 MB). The documents are checked against the budgets once more
 * here, for the readers whose task does not.
 */
export async function readInWorker(pool: WorkerPool, id: OffloadedReader, input: ReaderInput, options: ReadOptions | undefined, readerOptions?: Record<string, unknown>): Promise<Document[]> {
  const payload: ReadPayload = { options: readerOptions, name: input.name, data: input.data, limits: options?.limits, linksOf: options?.links?.pageUrl };
  const result = await pool.run<ReadReply | Document[]>(TASKS[id], payload, { signal: options?.signal, label: `${id} reader: "${input.name}"` });
  const answer: ReadReply = Array.isArray(result) ? { documents: result } : result;
  if (options?.links) options.links.found = answer.links ?? [];
  const documents = await unpackRecords(answer.documents, options?.signal);
  checkDocuments(documents, input.name, options?.limits);
  return documents;
}
