/**
 * @module workers/child
 * The entry of a pool worker process (see process.ts): it runs the tasks the pool sends, one at a
 * time, each an exported function of a module of this package (task.ts, run-task.ts).
 */
import { serveTasks } from './child-loop.js';
import { runTask } from './run-task.js';
import type { WorkerTask } from './task.js';

serveTasks((task, payload) => runTask(task as WorkerTask, payload));
