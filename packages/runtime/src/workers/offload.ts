/**
 * @module workers/offload
 * The process-wide worker pool. One pool serves every knowledge base of the process (threads
 * are per process, not per knowledge base); its settings (settings/workers) are read from the
 * environment the first time it is needed. The heavy byte readers, the converter, large
 * chunkings and the SQLite store's index work send their tasks here (see workers/task.ts).
 */
import type { Environment } from '../settings/environment.js';
import { readWorkerSettings } from '../settings/workers.js';
import { WorkerPool } from './pool.js';

/** Where a reader's parsing runs: a pool, or `inline` on the calling thread. */
export type Offload = WorkerPool | 'inline';

let shared: Offload | undefined;

/** The process's pool (or `inline` when KNOWLEDGE_WORKERS=0), created on first use from `env`. */
export function sharedOffload(env: Environment = process.env): Offload {
  if (shared) return shared;
  const settings = readWorkerSettings(env);
  shared = settings.size === 0 ? 'inline' : new WorkerPool(settings);
  return shared;
}
