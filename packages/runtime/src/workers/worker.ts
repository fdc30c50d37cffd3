/**
 * @module workers/worker
 * The entry of a pool worker thread (see pool.ts): it runs one task at a time, as the pool sends
 * them, and answers with the task's value or its error. A task names a module of this package and
 * one of its exported functions (see task.ts); the module is imported on first use, so a worker
 * loads only the libraries its tasks need.
 */
import { parentPort } from 'node:worker_threads';
import { RuntimeError } from '../errors.js';
import { serializeError, type ReadyMessage, type TaskMessage, type TaskReply } from './pool.js';
import type { WorkerTask } from './task.js';

const port = parentPort;
if (!port) throw new Error('workers/worker must run in a worker thread');

/** The package's source (or dist) folder: tasks come from its own modules only. */
const ROOT = new URL('..', import.meta.url).href;

async function runTask(task: WorkerTask, payload: unknown): Promise<unknown> {
  if (typeof task?.module !== 'string' || !task.module.startsWith(ROOT) || typeof task.name !== 'string') {
    throw new RuntimeError('INTERNAL_SERVER_ERROR', 'A worker task must name an exported function of a module of this package');
  }
  const loaded = (await import(task.module)) as Record<string, unknown>;
  const fn = loaded[task.name];
  if (typeof fn !== 'function') throw new RuntimeError('INTERNAL_SERVER_ERROR', `Unknown worker task "${task.name}"`);
  return (fn as (payload: unknown) => unknown)(payload);
}

port.on('message', (message: TaskMessage) => {
  void (async () => {
    let reply: TaskReply;
    try {
      reply = { id: message.id, ok: true, value: await runTask(message.task as WorkerTask, message.payload) };
    } catch (error) {
      reply = { id: message.id, ok: false, error: serializeError(error) };
    }
    port.postMessage(reply);
  })();
});
// Task time limits start from here, not from the thread's start (see pool.ts `ready`).
port.postMessage({ ready: true } satisfies ReadyMessage);
