/**
 * @module workers/run-task
 * Runs one task inside a worker (thread or process): imports the task's module on first use, so
 * a worker loads only the libraries its tasks need, and calls its exported function.
 */
import { RuntimeError } from '../errors.js';
import type { WorkerTask } from './task.js';

/** The package's source (or dist) folder: tasks come from its own modules only. */
const ROOT = new URL('..', import.meta.url).href;

export async function runTask(task: WorkerTask, payload: unknown): Promise<unknown> {
  if (typeof task?.module !== 'string' || !task.module.startsWith(ROOT) || typeof task.name !== 'string') {
    throw new RuntimeError('INTERNAL_SERVER_ERROR', 'A worker task must name an exported function of a module of this package');
  }
  const loaded = (await import(task.module)) as Record<string, unknown>;
  const fn = loaded[task.name];
  if (typeof fn !== 'function') throw new RuntimeError('INTERNAL_SERVER_ERROR', `Unknown worker task "${task.name}"`);
  return (fn as (payload: unknown) => unknown)(payload);
}
