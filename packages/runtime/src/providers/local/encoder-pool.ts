/**
 * @module providers/local/encoder-pool
 * Where the local embedder's batches run: worker processes of their own (the workers/ kit's
 * WorkerPool, `isolation: 'process'`), apart from the knowledge pool that parses uploads.
 *
 * - **Not the knowledge pool.** That pool's workers stop after 30 s idle and are stopped to make
 *   room for the other kind (a PDF parser's process takes a thread's place), and each would load
 *   its own copy of the model: the model would be loaded again and again, and a search's query
 *   would wait behind parsing. Here the workers keep the model for 10 minutes of idleness.
 * - **Processes, not threads.** A worker process runs 10 nice levels below the runtime (see
 *   workers/process.ts), so on a busy machine the event loop gets the CPU first while an upload
 *   is embedded for minutes; the model's memory (WebAssembly, ~300 MB) is outside the runtime's
 *   process and bounded (past 1.5 GB resident the worker is ended, the batch fails, and the next
 *   one starts a fresh worker).
 * - **One process by default** (LOCAL_EMBEDDING_WORKERS): the other core stays for the event
 *   loop, the database and the parsers.
 *
 * The pool's queue is bypassed by the scheduler (scheduler.ts), which hands a batch over only
 * when a worker is free, searches first. One pool serves the process, made by the first local
 * embedder with its worker count.
 */
import { WorkerPool } from '../../workers/pool.js';
import { defineWorkerTask } from '../../workers/task.js';
import { PriorityScheduler, type ScheduleOptions } from './scheduler.js';
import type { EncodePayload, EncodeReply } from './sentence-encoder.js';

const ENCODE = defineWorkerTask('local-embed', import.meta.url, './sentence-encoder.js', 'encodeTask', { isolation: 'process' });

/** A worker's limits: the model and a batch fit well within them (measured: ~300-480 MB resident). */
const LIMITS = { rssMb: 1536, memoryMb: 1024, taskTimeoutMs: 120_000, idleMs: 10 * 60_000 } as const;

export class EncoderPool {
  private readonly pool: WorkerPool;
  private readonly scheduler: PriorityScheduler;

  constructor(readonly workers: number) {
    // The scheduler never hands over more batches than there are workers, so the pool's queue stays empty.
    this.pool = new WorkerPool({ size: workers, maxQueue: workers, isolation: 'process', ...LIMITS });
    this.scheduler = new PriorityScheduler(workers);
  }

  /** Encodes one batch in a worker, once one is free (interactive batches first). */
  encode(payload: EncodePayload, options: ScheduleOptions = {}): Promise<EncodeReply> {
    return this.scheduler.run(() => this.pool.run<EncodeReply>(ENCODE, payload, { label: 'The local sentence encoder' }), options);
  }

  /** The worker processes alive (tests and diagnostics). */
  processIds(): number[] {
    return this.pool.processIds();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

let shared: EncoderPool | undefined;

/** The process's encoder pool, made on first use with `workers` processes at most. */
export function sharedEncoderPool(workers: number): EncoderPool {
  shared ??= new EncoderPool(workers);
  return shared;
}
