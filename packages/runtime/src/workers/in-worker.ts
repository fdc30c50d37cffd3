/**
 * @module workers/in-worker
 * Whether this code runs inside a pool worker (a thread, or a process started by process.ts),
 * where work the pool would take is done inline instead: a pool of its own there would only
 * multiply threads and processes under the one the pool already bounds. A worker process is
 * the main thread of its own process, so `isMainThread` alone cannot tell.
 */
import { isMainThread } from 'node:worker_threads';

let poolProcess = false;

/** Called by a worker process's task loop (child-loop.ts) before it takes a task. */
export function markPoolProcess(): void {
  poolProcess = true;
}

export function inPoolWorker(): boolean {
  return !isMainThread || poolProcess;
}
