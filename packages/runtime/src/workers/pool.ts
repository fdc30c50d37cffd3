/**
 * @module workers/pool
 * A small pool of worker threads for CPU-heavy conversion (PDF, Office, OCR, markup), so a
 * large upload does not stall the event loop that serves every other request.
 *
 * - **One task per worker.** A task names an exported function of one of this package's
 *   modules (task.ts) and carries a structured-cloneable payload; the worker entry (worker.ts)
 *   imports the module and runs the function. (A custom entry may address its tasks otherwise:
 *   the pool passes a name it does not know through as it is.) Workers start on demand, up to
 *   `size`, and stop after `idleMs` without work; an idle worker does not keep the process alive.
 * - **Bounded queue.** Tasks beyond the free workers wait in FIFO order, at most `maxQueue` of
 *   them; one more is refused at once with SERVICE_UNAVAILABLE (a background job retries it).
 * - **Cancellation and timeouts.** An aborted signal removes a waiting task, or terminates the
 *   worker running it (JavaScript cannot be interrupted any other way); a task running longer
 *   than its timeout is stopped the same way and fails with a 422 naming the limit. The next
 *   task gets a fresh worker.
 * - **Memory.** Each worker's V8 heap is capped (`memoryMb`), so a file that needs too much
 *   memory kills only its worker and fails with a 422, instead of taking the process down.
 * - **Typed errors.** A RuntimeError thrown in the worker arrives as the same RuntimeError
 *   (code and message); anything else arrives as a plain Error with the worker's message.
 *
 * The worker file is found next to this module: `worker.js` in the built package, or, when this
 * module itself runs from TypeScript sources (tests, tsx), `worker.ts` loaded through tsx's
 * loader, registered inside the worker before the entry is imported.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { ConfigurationError, ERROR_CODES, RuntimeError, type ErrorCode } from '../errors.js';
import { defaultPoolSize, WORKER_DEFAULTS } from '../settings/workers.js';
import { addressOf, type WorkerTask } from './task.js';

export interface WorkerPoolOptions {
  /** Workers at most; default min(2, available cores). */
  size?: number;
  /** Tasks that may wait for a worker; default 64. */
  maxQueue?: number;
  /** Per task, from the moment a worker starts it; default 120 s. */
  taskTimeoutMs?: number;
  /** V8 old-generation heap per worker, in MB; default 2048. */
  memoryMb?: number;
  /** An idle worker stops after this long; default 30 s. */
  idleMs?: number;
  /** The worker entry module; default worker.ts / worker.js beside this file. */
  entry?: URL;
}

export interface RunOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the pool's task timeout for this task. */
  timeoutMs?: number | undefined;
  /** Buffers moved to the worker instead of copied (the caller must not use them afterwards). */
  transfer?: ArrayBuffer[];
  /** How errors name the work, e.g. `converter reader: "scan.pdf"`. */
  label?: string;
}

/** What the worker sends back for one task. */
export type TaskReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/** What a worker posts once it has loaded and listens for tasks. */
export interface ReadyMessage {
  ready: true;
}

export interface SerializedError {
  /** A RuntimeError's code, when it was one. */
  code?: string;
  name: string;
  message: string;
}

export interface TaskMessage {
  id: number;
  /** What to run: a WorkerTask for the default entry; a custom entry's own form otherwise. */
  task: WorkerTask | string;
  payload: unknown;
}

interface Pending {
  id: number;
  task: WorkerTask | string;
  payload: unknown;
  options: RunOptions;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Removes the abort listener. */
  cleanup(): void;
  /** Set when the task has been resolved or rejected. */
  done?: boolean;
}

interface Slot {
  worker: Worker;
  current: Pending | undefined;
  timer: NodeJS.Timeout | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** Set once the pool has decided to stop this worker, so its exit is not treated as a crash. */
  retiring: boolean;
  /**
   * Set when the worker said it listens. Until then a task's time limit is not running: booting
   * a thread (and, under tsx, compiling its modules) takes seconds on a loaded machine, and that
   * is not the conversion's time. `BOOT_ALLOWANCE_MS` still bounds a worker that never boots.
   */
  ready: boolean;
}

const BOOT_ALLOWANCE_MS = 30_000;

const IDLE_MS = 30_000;

export class WorkerPool {
  readonly size: number;
  readonly maxQueue: number;
  readonly taskTimeoutMs: number;
  readonly memoryMb: number;
  readonly idleMs: number;
  private readonly entry: URL;
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers started so far (for tests and diagnostics). */
  started = 0;

  constructor(options: WorkerPoolOptions = {}) {
    this.size = options.size ?? defaultPoolSize();
    this.maxQueue = options.maxQueue ?? WORKER_DEFAULTS.maxQueue;
    this.taskTimeoutMs = options.taskTimeoutMs ?? WORKER_DEFAULTS.taskTimeoutSeconds * 1000;
    this.memoryMb = options.memoryMb ?? WORKER_DEFAULTS.memoryMb;
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.entry = options.entry ?? defaultEntry();
    if (!Number.isInteger(this.size) || this.size < 1) throw new ConfigurationError(`worker pool size must be a whole number of at least 1, got ${this.size}`);
    if (!Number.isInteger(this.maxQueue) || this.maxQueue < 0) throw new ConfigurationError(`worker pool queue must be a whole number, got ${this.maxQueue}`);
  }

  /** Tasks running and waiting, and the workers alive. */
  stats(): { workers: number; busy: number; queued: number } {
    let busy = 0;
    for (const slot of this.slots) if (slot.current) busy++;
    return { workers: this.slots.size, busy, queued: this.queue.length };
  }

  /** Runs `task` in a worker and resolves with what it returns. */
  run<T>(task: WorkerTask | string, payload: unknown, options: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new RuntimeError('SERVICE_UNAVAILABLE', 'The conversion worker pool is closed'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const free = [...this.slots].some((s) => !s.current) || this.slots.size < this.size;
    if (!free && this.queue.length >= this.maxQueue) {
      return Promise.reject(new RuntimeError('SERVICE_UNAVAILABLE', `${options.label ?? 'The conversion'}: all ${this.size} conversion workers are busy and ${this.queue.length} task(s) are waiting; try again later`));
    }
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = {
        id: this.nextId++,
        task,
        payload,
        options,
        resolve: resolve as (value: unknown) => void,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      const onAbort = () => this.cancel(pending, signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Stops every worker; waiting and running tasks fail with SERVICE_UNAVAILABLE. */
  async close(): Promise<void> {
    this.closed = true;
    const reason = new RuntimeError('SERVICE_UNAVAILABLE', 'The conversion worker pool was closed');
    for (const pending of this.queue.splice(0)) this.settle(pending, reason);
    await Promise.all([...this.slots].map((slot) => this.retire(slot, reason)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => !s.current && !s.retiring);
      if (!slot) {
        if (this.slots.size >= this.size) return;
        slot = this.spawn();
      }
      const pending = this.queue.shift()!;
      this.start(slot, pending);
    }
  }

  private spawn(): Slot {
    const resourceLimits: ResourceLimits = { maxOldGenerationSizeMb: this.memoryMb };
    const worker = startWorker(this.entry, resourceLimits);
    this.started++;
    const slot: Slot = { worker, current: undefined, timer: undefined, idleTimer: undefined, retiring: false, ready: false };
    worker.on('message', (reply: TaskReply | ReadyMessage) => ('ready' in reply ? this.onReady(slot) : this.onReply(slot, reply)));
    worker.on('error', (error: Error) => this.onCrash(slot, error));
    worker.on('exit', (code) => this.onExit(slot, code));
    this.slots.add(slot);
    return slot;
  }

  private start(slot: Slot, pending: Pending): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.current = pending;
    slot.worker.ref();
    this.armTimer(slot, pending, slot.ready ? 0 : BOOT_ALLOWANCE_MS);
    const message: TaskMessage = { id: pending.id, task: addressOf(pending.task), payload: pending.payload };
    try {
      slot.worker.postMessage(message, pending.options.transfer ?? []);
    } catch (cause) {
      // An uncloneable payload is a programming error of the caller.
      this.settle(pending, cause);
      this.release(slot);
    }
  }

  /** Stops the task (and its worker) when it runs past its time limit, plus `allowanceMs` while the worker boots. */
  private armTimer(slot: Slot, pending: Pending, allowanceMs: number): void {
    if (slot.timer) clearTimeout(slot.timer);
    const timeoutMs = pending.options.timeoutMs ?? this.taskTimeoutMs;
    slot.timer = setTimeout(() => {
      const seconds = Math.round(timeoutMs / 100) / 10;
      const error = new RuntimeError('VALIDATION_ERROR', `${pending.options.label ?? 'The conversion'} did not finish within ${seconds} s and was stopped (the conversion time limit)`);
      this.settle(pending, error);
      void this.retire(slot, error);
    }, timeoutMs + allowanceMs);
  }

  /** The worker listens now: a task sent while it booted gets its plain time limit from here. */
  private onReady(slot: Slot): void {
    slot.ready = true;
    if (slot.current) this.armTimer(slot, slot.current, 0);
  }

  private onReply(slot: Slot, reply: TaskReply): void {
    const pending = slot.current;
    if (!pending || pending.id !== reply.id) return;
    if (reply.ok) this.settle(pending, undefined, reply.value);
    else this.settle(pending, reviveError(reply.error));
    this.release(slot);
  }

  /** Marks a slot free and gives it the next task, or lets it idle. */
  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.current = undefined;
    if (slot.retiring) return;
    if (this.queue.length > 0) {
      this.dispatch();
      return;
    }
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => void this.retire(slot), this.idleMs);
    slot.idleTimer.unref();
  }

  private cancel(pending: Pending, reason: unknown): void {
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(pending, reason);
      return;
    }
    const slot = [...this.slots].find((s) => s.current === pending);
    if (!slot) return;
    this.settle(pending, reason);
    // The only way to stop JavaScript that is running: end its thread.
    void this.retire(slot, reason);
  }

  /** Settles a task once; later calls for the same task do nothing. */
  private settle(pending: Pending, error: unknown, value?: unknown): void {
    if (pending.done) return;
    pending.done = true;
    pending.cleanup();
    if (error !== undefined) pending.reject(error);
    else pending.resolve(value);
  }

  /** Terminates a worker; its task (if still unsettled) fails with `reason`. */
  private async retire(slot: Slot, reason?: unknown): Promise<void> {
    if (slot.retiring) return;
    slot.retiring = true;
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.current) this.settle(slot.current, reason ?? new RuntimeError('SERVICE_UNAVAILABLE', 'The conversion worker was stopped'));
    slot.current = undefined;
    this.slots.delete(slot);
    try {
      await slot.worker.terminate();
    } finally {
      // A replacement starts for tasks that were waiting.
      if (!this.closed) this.dispatch();
    }
  }

  private onCrash(slot: Slot, error: Error): void {
    if (slot.retiring) return;
    const pending = slot.current;
    const code = (error as NodeJS.ErrnoException).code;
    const what = pending?.options.label ?? 'The conversion';
    const mapped =
      code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new RuntimeError('VALIDATION_ERROR', `${what} needed more memory than a conversion may use (${this.memoryMb} MB) and was stopped`, { cause: error })
        : new RuntimeError('VALIDATION_ERROR', `${what} failed: the conversion worker stopped (${error.message})`, { cause: error });
    void this.retire(slot, mapped);
  }

  private onExit(slot: Slot, code: number): void {
    if (slot.retiring) return;
    // An exit nobody asked for (process.exit in a library): the task cannot finish.
    void this.retire(slot, new RuntimeError('VALIDATION_ERROR', `${slot.current?.options.label ?? 'The conversion'} failed: the conversion worker exited (code ${code})`));
  }
}

/** Rebuilds a worker's error: a RuntimeError keeps its code, so the HTTP and job layers map it as usual. */
export function reviveError(error: SerializedError): Error {
  if (error.code && Object.hasOwn(ERROR_CODES, error.code)) return new RuntimeError(error.code as ErrorCode, error.message);
  const revived = new Error(error.message);
  revived.name = error.name;
  return revived;
}


/** What a worker sends for an error it caught. */
export function serializeError(error: unknown): SerializedError {
  if (RuntimeError.isInstance(error)) return { code: error.code, name: 'RuntimeError', message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function defaultEntry(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
}

/**
 * Starts a worker on an entry module. A `.js` entry (the built package) is loaded directly. A
 * `.ts` entry (sources under vitest or tsx) is imported after tsx's ESM loader is registered in
 * the new thread: loader hooks are per thread, and `--import tsx` in a worker's execArgv does not
 * apply to the worker's own entry on Node 20.
 */
let tsxApi: string | undefined;

/** The file URL of tsx's ESM loader API (`tsx/esm/api`, import condition), a devDependency. */
function tsxLoaderApi(): string {
  if (tsxApi) return tsxApi;
  const manifestPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  tsxApi = pathToFileURL(join(dirname(manifestPath), manifest.exports['./esm/api']!.import.default)).href;
  return tsxApi;
}

function startWorker(entry: URL, resourceLimits: ResourceLimits): Worker {
  const options = { resourceLimits, execArgv: workerExecArgv() };
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const boot = `import { register } from ${JSON.stringify(tsxLoaderApi())};\nregister();\nawait import(${JSON.stringify(entry.href)});\n`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * The process's Node options, as workers inherit them by default, less those about the main
 * script given on the command line (`--input-type`, `--eval`, `--print`), which a worker refuses
 * or would run again.
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (['--input-type', '-e', '--eval', '-p', '--print'].includes(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('--input-type=') || arg.startsWith('--eval=') || arg.startsWith('--print=')) continue;
    out.push(arg);
  }
  return out;
}
