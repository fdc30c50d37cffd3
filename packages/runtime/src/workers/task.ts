/**
 * @module workers/task
 * How work is addressed to a worker: the module that exports a function, the function's name,
 * and where it must run. The pool and its workers know no feature: a feature names its own
 * module, usually under a task name of its own (`defineWorkerTask`), which is what callers, logs
 * and tests see.
 */

/**
 * Where a task runs: `thread` (a worker thread of this process: cheap to start, moves buffers
 * without a copy, but shares the process's native memory) or `process` (a worker process of its
 * own, whose resident memory the pool bounds and kills past the limit: for parsers of untrusted
 * files, whose native allocations a thread's heap limit does not see).
 */
export type Isolation = 'thread' | 'process';

export interface WorkerTask {
  /** A `file:` URL of an ES module of this package. */
  readonly module: string;
  /** The name of the exported function: `(payload) => value | Promise<value>`. */
  readonly name: string;
  /** Where it runs; default `thread`. */
  readonly isolation?: Isolation | undefined;
}

/**
 * The task `name` exported by the module `specifier` (relative to `from`, the caller's
 * `import.meta.url`). Sources run as `.ts` (tests, tsx) and the built package as `.js`, so a
 * `.js` specifier names the `.ts` file when the caller itself is one.
 */
export function workerTask(from: string, specifier: string, name: string, isolation?: Isolation): WorkerTask {
  const resolved = new URL(specifier, from).href;
  const module = from.endsWith('.ts') && resolved.endsWith('.js') ? `${resolved.slice(0, -3)}.ts` : resolved;
  return isolation === undefined ? { module, name } : { module, name, isolation };
}

const named = new Map<string, WorkerTask>();

export interface TaskOptions {
  /** `process` for a parser of untrusted bytes (see Isolation); default `thread`. */
  isolation?: Isolation;
}

/**
 * Gives a module's exported function a task name (`sqlite-checkpoint`): `pool.run(name, ...)`
 * then runs it. Defined where the task's caller lives, so the name is known once that module is
 * loaded. Returns the name.
 */
export function defineWorkerTask(taskName: string, from: string, specifier: string, exportName: string, options: TaskOptions = {}): string {
  named.set(taskName, workerTask(from, specifier, exportName, options.isolation));
  return taskName;
}

/** What a worker is sent for `task`: a defined name becomes its module and export; anything else goes as it is. */
export function addressOf(task: string | WorkerTask): string | WorkerTask {
  return typeof task === 'string' ? (named.get(task) ?? task) : task;
}

/** Where `task` runs: its own choice, `thread` for a name the pool does not know (a custom entry's). */
export function isolationOf(task: string | WorkerTask): Isolation {
  const address = addressOf(task);
  return typeof address === 'string' ? 'thread' : (address.isolation ?? 'thread');
}
