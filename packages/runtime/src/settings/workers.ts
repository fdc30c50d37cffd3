/**
 * @module settings/workers
 * The worker pool area: the one pool of worker threads that serves every knowledge base of the
 * process (workers/offload), configured from the environment the first time it is needed:
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `KNOWLEDGE_WORKERS` | min(2, cores) | worker threads, 0 to 64; `0` converts on the main thread (no pool) |
 * | `KNOWLEDGE_WORKER_QUEUE` | 64 | conversions that may wait for a worker, 0 to 100000; more are refused (503, retried) |
 * | `KNOWLEDGE_WORKER_TIMEOUT_SECONDS` | 120 | one conversion's time limit, 1 to 86400; the worker is stopped after it |
 * | `KNOWLEDGE_WORKER_MEMORY_MB` | 2048 | each worker's JavaScript heap limit, 64 to 65536 |
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { seconds, wholeNumber } from './fields.js';

export interface WorkerSettings {
  /** Worker threads; 0 means conversions run inline. */
  size: number;
  maxQueue: number;
  taskTimeoutMs: number;
  memoryMb: number;
}

/** The pool's defaults, also for a WorkerPool built in code without them. */
export const WORKER_DEFAULTS = { maxQueue: 64, taskTimeoutSeconds: 120, memoryMb: 2048 } as const;

/** Two threads at most by default: conversions are bursts, and the event loop needs a core. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

export const workerSettingsSchema = z
  .object({
    KNOWLEDGE_WORKERS: wholeNumber({ min: 0, max: 64, default: defaultPoolSize }),
    KNOWLEDGE_WORKER_QUEUE: wholeNumber({ min: 0, max: 100_000, default: WORKER_DEFAULTS.maxQueue }),
    KNOWLEDGE_WORKER_TIMEOUT_SECONDS: seconds({ min: 1, max: 86_400, default: WORKER_DEFAULTS.taskTimeoutSeconds }),
    KNOWLEDGE_WORKER_MEMORY_MB: wholeNumber({ min: 64, max: 65_536, default: WORKER_DEFAULTS.memoryMb }),
  })
  .transform(
    (env): WorkerSettings => ({
      size: env.KNOWLEDGE_WORKERS,
      maxQueue: env.KNOWLEDGE_WORKER_QUEUE,
      taskTimeoutMs: env.KNOWLEDGE_WORKER_TIMEOUT_SECONDS,
      memoryMb: env.KNOWLEDGE_WORKER_MEMORY_MB,
    }),
  );

/** The pool settings in `env`; throws ConfigurationError on a malformed value. */
export function readWorkerSettings(env: Environment = process.env): WorkerSettings {
  return readEnvironment(workerSettingsSchema, env);
}
