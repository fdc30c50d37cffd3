/**
 * @module workers/offload
 * The process-wide worker pool. One pool serves every
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
 * The heavy byte readers, the converter, large chunkings and the SQLite store's index work send
 * their tasks here (see workers/task.ts).
 */
import { ConfigurationError } from '../errors.js';
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
