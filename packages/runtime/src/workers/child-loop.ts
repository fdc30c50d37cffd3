/**
 * @module workers/child-loop
 * The task loop of a pool worker process (see process.ts): one task at a time from the IPC
 * channel, one reply each, `ready` once listening. The process leaves when its channel closes,
 * or, when its parent dies while a task holds the event loop, by the hand of a small watcher
 * thread that sees its parent change. Termination signals are the pool's to send, not a
 * terminal's or a service manager's: they are ignored.
 */
import { Worker } from 'node:worker_threads';
import { markPoolProcess } from './in-worker.js';
import { serializeError, type ReadyMessage, type TaskMessage, type TaskReply } from './protocol.js';

/** Kills this process once its parent process is gone (its parent id changes). */
const WATCHER = `const { workerData } = require('node:worker_threads');
setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 500);`;

export function serveTasks(run: (task: TaskMessage['task'], payload: unknown) => unknown): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('workers/child must run in a process started with an IPC channel');
  markPoolProcess();
  const watcher = new Worker(WATCHER, { eval: true, workerData: process.ppid, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: 16 } });
  watcher.unref();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: TaskMessage) => {
    void (async () => {
      let reply: TaskReply;
      try {
        reply = { id: message.id, ok: true, value: await run(message.task, message.payload) };
      } catch (error) {
        reply = { id: message.id, ok: false, error: serializeError(error) };
      }
      try {
        send(reply);
      } catch (error) {
        // A value the channel cannot carry: the task still gets an answer.
        send({ id: message.id, ok: false, error: serializeError(error) } satisfies TaskReply);
      }
    })();
  });
  send({ ready: true } satisfies ReadyMessage);
}
