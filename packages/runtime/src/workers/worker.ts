/**
 * @module workers/worker
 * The entry of a pool worker thread (see pool.ts): it runs one task at a time, as the pool sends
 * them, and answers with the task's value or its error. A task names a module of this package and
 * one of its exported functions (see task.ts, run-task.ts).
 */
import { parentPort } from 'node:worker_threads';
import { serializeError, type ReadyMessage, type TaskMessage, type TaskReply } from './protocol.js';
import { runTask } from './run-task.js';
import type { WorkerTask } from './task.js';

const port = parentPort;
if (!port) throw new Error('workers/worker must run in a worker thread');

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
