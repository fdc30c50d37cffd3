/**
 * A worker entry for the pool's own tests: tasks that spin, hang, fail, exhaust memory or exit,
 * answering with the pool's protocol (the real entry is src/workers/worker.ts).
 */
import { parentPort } from 'node:worker_threads';
import { serializeError, type ReadyMessage, type TaskMessage, type TaskReply } from '../../src/workers/pool.js';
import { commonTasks } from './pool-tasks.js';

const tasks: Record<string, (payload: never) => unknown> = {
  ...commonTasks,
  exhaust: () => {
    const hoard: number[][] = [];
    for (;;) hoard.push(Array.from({ length: 1_000_000 }, (_, i) => i));
  },
  exit: () => process.exit(3),
  threadId: async () => (await import('node:worker_threads')).threadId,
};

const port = parentPort!;
port.on('message', (message: TaskMessage) => {
  void (async () => {
    let reply: TaskReply;
    try {
      reply = { id: message.id, ok: true, value: await tasks[message.task as string]!(message.payload as never) };
    } catch (error) {
      reply = { id: message.id, ok: false, error: serializeError(error) };
    }
    port.postMessage(reply);
  })();
});
port.postMessage({ ready: true } satisfies ReadyMessage);
