/**
 * @module knowledge/readers/bytes/offloaded
 * The heavy byte readers (pdf, docx, excel, pptx) read in a worker process of the pool: each
 * exports a `readInline` task, the same reader constructed inline, which reads the bytes sent there.
 */
import type { Document, ReaderInput } from '../../types.js';
import type { ReadOptions } from '../reader.js';
import type { WorkerPool } from '../../../workers/pool.js';
import { defineWorkerTask } from '../../../workers/task.js';

/** The heavy byte readers that can read in a worker. */
export type OffloadedReader = 'pdf' | 'docx' | 'excel' | 'pptx';

// Each reader's module, addressed by URL: the worker imports it, this module does not. They parse
// uploaded files, so each runs in a worker process whose memory the pool bounds (a thread's heap
// limit does not see what zip inflation and parsers allocate outside it).
const ISOLATED = { isolation: 'process' } as const;
const TASKS: Record<OffloadedReader, string> = {
  pdf: defineWorkerTask('read:pdf', import.meta.url, './pdf.js', 'readInline', ISOLATED),
  docx: defineWorkerTask('read:docx', import.meta.url, './docx.js', 'readInline', ISOLATED),
  excel: defineWorkerTask('read:excel', import.meta.url, './excel.js', 'readInline', ISOLATED),
  pptx: defineWorkerTask('read:pptx', import.meta.url, './pptx.js', 'readInline', ISOLATED),
};

export interface ReadPayload {
  /** The reader's constructor options (plain data). */
  options?: Record<string, unknown> | undefined;
  name: string;
  data: string | Uint8Array;
}

/**
 * Reads `input` with the reader `id` in a worker of `pool`. The bytes are copied once into a
 * buffer of their own and moved (cloning a view would copy its whole backing buffer).
 */
export function readInWorker(pool: WorkerPool, id: OffloadedReader, input: ReaderInput, options: ReadOptions | undefined, readerOptions?: Record<string, unknown>): Promise<Document[]> {
  // A copy in a buffer of its own: a Buffer's slice() is a view, and moving its backing buffer
  // would empty the caller's Buffer (and every other view of a pooled one).
  const data = typeof input.data === 'string' ? input.data : new Uint8Array(input.data);
  const payload: ReadPayload = { options: readerOptions, name: input.name, data };
  return pool.run<Document[]>(TASKS[id], payload, {
    signal: options?.signal,
    label: `${id} reader: "${input.name}"`,
    ...(typeof data === 'string' ? {} : { transfer: [data.buffer as ArrayBuffer] }),
  });
}
