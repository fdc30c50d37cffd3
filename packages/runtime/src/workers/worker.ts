/**
 * @module workers/worker
 * The entry of a conversion worker thread (see pool.ts): it runs one task at a time, as the
 * pool sends them, and answers with the task's value or its error. The tasks are in tasks.ts;
 * their modules are imported on first use, so a worker only loads the libraries it needs.
 */
import { parentPort } from 'node:worker_threads';
import { serializeError, type ReadyMessage, type TaskMessage, type TaskReply } from './pool.js';
import { runTask } from './tasks.js';

const port = parentPort;
if (!port) throw new Error('knowledge/workers/worker must run in a worker thread');

port.on('message', (message: TaskMessage) => {
  void (async () => {
    let reply: TaskReply;
    try {
      reply = { id: message.id, ok: true, value: await runTask(message.task, message.payload) };
    } catch (error) {
      reply = { id: message.id, ok: false, error: serializeError(error) };
    }
    port.postMessage(reply);
  })();
});
// Task time limits start from here, not from the thread's start (see pool.ts `ready`).
port.postMessage({ ready: true } satisfies ReadyMessage);

