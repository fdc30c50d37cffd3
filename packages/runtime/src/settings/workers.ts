/**
 * @module settings/workers
 * The worker pool area: the one pool that serves every knowledge base of the process
 * (workers/offload), configured from the environment the first time it is needed. The pool
 * runs each task in a worker thread, or, for the parsers of uploaded files, in a worker process
 * whose memory the pool can bound (see workers/pool):
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `KNOWLEDGE_WORKERS` | min(2, cores) | workers (threads and processes together), 0 to 64; `0` converts on the main thread (no pool, no limits) |
 * | `KNOWLEDGE_WORKER_QUEUE` | 64 | conversions that may wait for a worker, 0 to 100000; more are refused (503, retried) |
 * | `KNOWLEDGE_WORKER_TIMEOUT_SECONDS` | 120 | one conversion's time limit, 1 to 86400; the worker is stopped after it |
 * | `KNOWLEDGE_WORKER_MEMORY_MB` | 2048 | each worker's JavaScript heap limit, 64 to 65536 (a process's is also held under its resident limit) |
 * | `KNOWLEDGE_WORKER_RSS_MB` | 512 | each worker process's resident memory (heap, buffers, native libraries), 128 to 65536; past it the process is killed and the file fails |
 * | `KNOWLEDGE_WORKER_STACK_MB` | 4 | each worker's stack, 1 to 64; a file nested deeper fails |
 *
 * With the default two workers, the parsers of uploads hold at most 2 x 512 MB, outside the
 * runtime's own process.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { seconds, wholeNumber } from './fields.js';

export interface WorkerSettings {
  /** Workers; 0 means conversions run inline. */
  size: number;
  maxQueue: number;
  taskTimeoutMs: number;
  memoryMb: number;
  rssMb: number;
  stackMb: number;
}

/** The pool's defaults, also for a WorkerPool built in code without them. */
export const WORKER_DEFAULTS = { maxQueue: 64, taskTimeoutSeconds: 120, memoryMb: 2048, rssMb: 512, stackMb: 4 } as const;

/** The variables that raise each limit, for the messages of tasks stopped by one. */
export const WORKER_LIMIT_VARIABLES = {
  memory: 'KNOWLEDGE_WORKER_MEMORY_MB',
  rss: 'KNOWLEDGE_WORKER_RSS_MB',
  stack: 'KNOWLEDGE_WORKER_STACK_MB',
  time: 'KNOWLEDGE_WORKER_TIMEOUT_SECONDS',
} as const;

/** Two workers at most by default: conversions are bursts, and the event loop needs a core. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

export const workerSettingsSchema = z
  .object({
    KNOWLEDGE_WORKERS: wholeNumber({ min: 0, max: 64, default: defaultPoolSize }),
    KNOWLEDGE_WORKER_QUEUE: wholeNumber({ min: 0, max: 100_000, default: WORKER_DEFAULTS.maxQueue }),
    KNOWLEDGE_WORKER_TIMEOUT_SECONDS: seconds({ min: 1, max: 86_400, default: WORKER_DEFAULTS.taskTimeoutSeconds }),
    KNOWLEDGE_WORKER_MEMORY_MB: wholeNumber({ min: 64, max: 65_536, default: WORKER_DEFAULTS.memoryMb }),
    KNOWLEDGE_WORKER_RSS_MB: wholeNumber({ min: 128, max: 65_536, default: WORKER_DEFAULTS.rssMb }),
    KNOWLEDGE_WORKER_STACK_MB: wholeNumber({ min: 1, max: 64, default: WORKER_DEFAULTS.stackMb }),
  })
  .transform(
    (env): WorkerSettings => ({
      size: env.KNOWLEDGE_WORKERS,
      maxQueue: env.KNOWLEDGE_WORKER_QUEUE,
      taskTimeoutMs: env.KNOWLEDGE_WORKER_TIMEOUT_SECONDS,
      memoryMb: env.KNOWLEDGE_WORKER_MEMORY_MB,
      rssMb: env.KNOWLEDGE_WORKER_RSS_MB,
      stackMb: env.KNOWLEDGE_WORKER_STACK_MB,
    }),
  );

/** The pool settings in `env`; throws ConfigurationError on a malformed value. */
export function readWorkerSettings(env: Environment = process.env): WorkerSettings {
  return readEnvironment(workerSettingsSchema, env);
}
