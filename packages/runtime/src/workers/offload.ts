/**
 * @module workers/offload
 * The process-wide conversion pool and the readers that use it. One pool serves every
 * knowledge base of the process (threads are per process, not per knowledge base); its settings
 * come from the environment the first time it is needed:
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `KNOWLEDGE_WORKERS` | min(2, cores) | worker threads; `0` converts on the main thread (no pool) |
 * | `KNOWLEDGE_WORKER_QUEUE` | 64 | conversions that may wait for a worker; more are refused (503, retried) |
 * | `KNOWLEDGE_WORKER_TIMEOUT_SECONDS` | 120 | one conversion's time limit; the worker is stopped after it |
 * | `KNOWLEDGE_WORKER_MEMORY_MB` | 2048 | each worker's JavaScript heap limit |
 *
 * The heavy byte readers (pdf, docx, excel, pptx) and the converter send their parsing here
 * (`read` task: the same reader, constructed inline, in the worker).
 */
import { ConfigurationError } from '../errors.js';
import type { Document, ReaderInput } from '../knowledge/types.js';
import type { ReadOptions } from '../knowledge/readers/reader.js';
import { WorkerPool, type WorkerPoolOptions, defaultPoolSize } from './pool.js';

/** Where a reader's parsing runs: a pool, or `inline` on the calling thread. */
export type Offload = WorkerPool | 'inline';

export type PoolEnvironment = Record<string, string | undefined>;

function int(env: PoolEnvironment, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigurationError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

/** The pool settings in `env`; `size` 0 means conversions run inline. Throws ConfigurationError on a malformed value. */
export function readWorkerSettings(env: PoolEnvironment = process.env): Required<Omit<WorkerPoolOptions, 'entry' | 'idleMs'>> {
  return {
    size: int(env, 'KNOWLEDGE_WORKERS', defaultPoolSize(), 0, 64),
    maxQueue: int(env, 'KNOWLEDGE_WORKER_QUEUE', 64, 0, 100_000),
    taskTimeoutMs: int(env, 'KNOWLEDGE_WORKER_TIMEOUT_SECONDS', 120, 1, 86_400) * 1000,
    memoryMb: int(env, 'KNOWLEDGE_WORKER_MEMORY_MB', 2048, 64, 65_536),
  };
}

let shared: Offload | undefined;

/** The process's pool (or `inline` when KNOWLEDGE_WORKERS=0), created on first use from `env`. */
export function sharedOffload(env: PoolEnvironment = process.env): Offload {
  if (shared) return shared;
  const settings = readWorkerSettings(env);
  shared = settings.size === 0 ? 'inline' : new WorkerPool(settings);
  return shared;
}

/** The heavy byte readers that can read in a worker. */
export type OffloadedReader = 'pdf' | 'docx' | 'excel' | 'pptx';

export interface ReadPayload {
  reader: OffloadedReader;
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
  const payload: ReadPayload = { reader: id, options: readerOptions, name: input.name, data };
  return pool.run<Document[]>('read', payload, {
    signal: options?.signal,
    label: `${id} reader: "${input.name}"`,
    ...(typeof data === 'string' ? {} : { transfer: [data.buffer as ArrayBuffer] }),
  });
}

/** The `read` task: the named reader, inline, in this worker. */
export async function readTask(payload: ReadPayload): Promise<Document[]> {
  const input = { data: payload.data, name: payload.name };
  switch (payload.reader) {
    case 'pdf':
      return new (await import('../knowledge/readers/bytes/pdf.js')).PdfReader({ offload: 'inline' }).read(input);
    case 'docx':
      return new (await import('../knowledge/readers/bytes/docx.js')).DocxReader({ offload: 'inline' }).read(input);
    case 'excel':
      return new (await import('../knowledge/readers/bytes/excel.js')).ExcelReader({ ...payload.options, offload: 'inline' }).read(input);
    case 'pptx':
      return new (await import('../knowledge/readers/bytes/pptx.js')).PptxReader({ offload: 'inline' }).read(input);
  }
}
