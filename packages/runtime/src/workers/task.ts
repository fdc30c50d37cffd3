/**
 * @module workers/task
 * How work is addressed to a worker thread: the module that exports a function, and the
 * function's name. The pool and its worker know no feature: a feature names its own module,
 * usually under a task name of its own (`defineWorkerTask`), which is what callers, logs and
 * tests see.
 */

export interface WorkerTask {
  /** A `file:` URL of an ES module of this package. */
  readonly module: string;
  /** The name of the exported function: `(payload) => value | Promise<value>`. */
  readonly name: string;
}

/**
 * The task `name` exported by the module `specifier` (relative to `from`, the caller's
 * `import.meta.url`). Sources run as `.ts` (tests, tsx) and the built package as `.js`, so a
 * `.js` specifier names the `.ts` file when the caller itself is one.
 */
export function workerTask(from: string, specifier: string, name: string): WorkerTask {
  const resolved = new URL(specifier, from).href;
  const module = from.endsWith('.ts') && resolved.endsWith('.js') ? `${resolved.slice(0, -3)}.ts` : resolved;
  return { module, name };
}

const named = new Map<string, WorkerTask>();

/**
 * Gives a module's exported function a task name (`sqlite-checkpoint`): `pool.run(name, ...)`
 * then runs it. Defined where the task's caller lives, so the name is known once that module is
 * loaded. Returns the name.
 */
export function defineWorkerTask(taskName: string, from: string, specifier: string, exportName: string): string {
  named.set(taskName, workerTask(from, specifier, exportName));
  return taskName;
}

/** What a worker is sent for `task`: a defined name becomes its module and export; anything else goes as it is. */
export function addressOf(task: string | WorkerTask): string | WorkerTask {
  return typeof task === 'string' ? (named.get(task) ?? task) : task;
}
