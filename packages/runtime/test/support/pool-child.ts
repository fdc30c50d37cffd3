/**
 * A worker process entry for the pool's process tests: the real task loop (child-loop.ts) over
 * tasks that misbehave as hostile files make parsers do: native memory in a loop, a heap that
 * fills, a stack that overflows, an exit, a loop that never yields (the real entry is
 * src/workers/child.ts).
 */
import { readFileSync } from 'node:fs';
import { serveTasks } from '../../src/workers/child-loop.js';
import { commonTasks } from './pool-tasks.js';

const hoard: unknown[] = [];

const tasks: Record<string, (payload: never) => unknown> = {
  ...commonTasks,
  pid: () => process.pid,
  /** Native memory, outside the V8 heap: `mb` megabytes of Buffers, 16 MB at a time, all touched. */
  allocate: (mb: number) => {
    for (let i = 0; i < mb / 16; i++) hoard.push(Buffer.alloc(16 * 1024 * 1024, 1));
    return hoard.length;
  },
  /** The same, catching failed allocations and trying again: only a kill stops it. */
  allocateStubbornly: (mb: number) => {
    let got = 0;
    while (got < mb) {
      try {
        hoard.push(Buffer.alloc(16 * 1024 * 1024, 1));
        got += 16;
      } catch {
        // try again
      }
    }
    return got;
  },
  /** JavaScript heap only. */
  exhaust: () => {
    for (;;) hoard.push(Array.from({ length: 1_000_000 }, (_, i) => i));
  },
  /** Recursion as deep as a parser of JSON nested `depth` levels goes. */
  recurse: (depth: number) => {
    const down = (n: number): number => (n === 0 ? 0 : 1 + down(n - 1));
    return down(depth);
  },
  /** JSON nested `depth` deep, parsed and written back (JSON.stringify recurses). */
  nested: (depth: number) => JSON.stringify(JSON.parse('['.repeat(depth) + ']'.repeat(depth))).length,
  exit: () => process.exit(3),
  abort: () => process.abort(),
  rssMb: () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024,
  /** What this process was started with. */
  execArgv: () => process.execArgv,
  ignoresTerm: () => {
    process.kill(process.pid, 'SIGTERM');
    return new Promise((resolve) => setTimeout(() => resolve('still here'), 100));
  },
};

serveTasks((task, payload) => {
  const fn = tasks[task as string];
  if (!fn) throw new Error(`no test task ${String(task)}`);
  return fn(payload as never);
});
