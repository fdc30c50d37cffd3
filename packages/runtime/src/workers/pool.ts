/**
 * @module workers/pool
 * A small pool of workers for CPU-heavy conversion (PDF, Office, OCR, markup), so a large upload
 * does not stall the event loop that serves every other request, and a hostile one cannot take
 * the process down.
 *
 * - **Threads and processes.** A task runs where it says (task.ts): in a worker thread (cheap;
 *   the pool's own tasks: chunking, index training) or in a worker process (process.ts: the
 *   parsers of uploaded files, whose native memory a thread's heap limit does not bound). Both
 *   speak one protocol (protocol.ts) and count against one `size`: an idle worker of the other
 *   kind is stopped to make room.
 * - **One task per worker.** A task names an exported function of one of this package's
 *   modules and carries a structured-cloneable payload; the worker entry imports the module and
 *   runs the function. (A custom entry may address its tasks otherwise: the pool passes a name it
 *   does not know through as it is.) Workers start on demand, up to `size`, and stop after
 *   `idleMs` without work; an idle worker does not keep the process alive.
 * - **Bounded queue.** Tasks beyond the free workers wait in FIFO order, at most `maxQueue` of
 *   them; one more is refused at once with SERVICE_UNAVAILABLE (a background job retries it).
 * - **Cancellation and timeouts.** An aborted signal removes a waiting task, or terminates the
 *   worker running it (JavaScript cannot be interrupted any other way); a task running longer
 *   than its timeout is stopped the same way and fails with a 422 naming the limit (and its
 *   setting, when the pool's own applied). The next task gets a fresh worker.
 * - **Memory and stack.** Each worker's V8 heap is capped (`memoryMb`), a process's resident
 *   memory too (`rssMb`, killed past it), and its stack (`stackMb`). A task stopped by a limit
 *   fails with a 422 naming it and the setting that raises it: a file's failure, not a retry.
 * - **Typed errors.** A RuntimeError thrown in the worker arrives as the same RuntimeError
 *   (code and message); a stack overflow as a 422; anything else as a plain Error with the
 *   worker's message.
 */
import { ConfigurationError, RuntimeError } from '../errors.js';
import { defaultPoolSize, WORKER_DEFAULTS, WORKER_LIMIT_VARIABLES } from '../settings/workers.js';
import type { Executor, ExecutorEvents, WorkerFailure } from './executor.js';
import { defaultProcessEntry, startProcess } from './process.js';
import { isAllocationFailure, isStackOverflow, reviveError, type SerializedError, type TaskMessage, type TaskReply } from './protocol.js';
import { addressOf, isolationOf, type Isolation, type WorkerTask } from './task.js';
import { defaultThreadEntry, startThread } from './thread.js';

export { reviveError, serializeError, type ReadyMessage, type SerializedError, type TaskMessage, type TaskReply } from './protocol.js';

export interface WorkerPoolOptions {
  /** Workers (threads and processes) at most; default min(2, available cores). */
  size?: number;
  /** Tasks that may wait for a worker; default 64. */
  maxQueue?: number;
  /** Per task, from the moment a worker starts it; default 120 s. */
  taskTimeoutMs?: number;
  /** V8 old-generation heap per worker, in MB; default 2048. */
  memoryMb?: number;
  /** Resident memory per worker process, in MB; default 512. */
  rssMb?: number;
  /** Stack per worker, in MB; default 4. */
  stackMb?: number;
  /** An idle worker stops after this long; default 30 s. */
  idleMs?: number;
  /** The worker thread entry module; default worker.ts / worker.js beside this file. */
  entry?: URL;
  /** The worker process entry module; default child.ts / child.js beside this file. */
  processEntry?: URL;
  /** `process`: every task runs in a worker process, whatever it asks (tests); default each task's own. */
  isolation?: Isolation;
  /** How often a busy process's resident memory is read; default 50 ms. */
  rssPollMs?: number;
}

export interface RunOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the pool's task timeout for this task. */
  timeoutMs?: number | undefined;
  /** Buffers moved to a worker thread instead of copied (the caller must not use them afterwards). */
  transfer?: ArrayBuffer[];
  /** How errors name the work, e.g. `converter reader: "scan.pdf"`. */
  label?: string;
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
  executor: Executor;
  kind: Isolation;
  current: Pending | undefined;
  timer: NodeJS.Timeout | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** Set once the pool has decided to stop this worker, so its exit is not treated as a crash. */
  retiring: boolean;
  /** Set while the pool checks whether a process may take another task. */
  checking: boolean;
  /**
   * Set when the worker said it listens. Until then a task's time limit is not running: booting
   * a worker (and, under tsx, compiling its modules) takes seconds on a loaded machine, and that
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
  readonly rssMb: number;
  readonly stackMb: number;
  readonly idleMs: number;
  private readonly entry: URL;
  private readonly processEntry: URL;
  private readonly isolation: Isolation | undefined;
  private readonly rssPollMs: number | undefined;
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
    this.rssMb = options.rssMb ?? WORKER_DEFAULTS.rssMb;
    this.stackMb = options.stackMb ?? WORKER_DEFAULTS.stackMb;
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.entry = options.entry ?? defaultThreadEntry();
    this.processEntry = options.processEntry ?? defaultProcessEntry();
    this.isolation = options.isolation;
    this.rssPollMs = options.rssPollMs;
    if (!Number.isInteger(this.size) || this.size < 1) throw new ConfigurationError(`worker pool size must be a whole number of at least 1, got ${this.size}`);
    if (!Number.isInteger(this.maxQueue) || this.maxQueue < 0) throw new ConfigurationError(`worker pool queue must be a whole number, got ${this.maxQueue}`);
  }

  /** Tasks running and waiting, and the workers alive. */
  stats(): { workers: number; busy: number; queued: number } {
    let busy = 0;
    for (const slot of this.slots) if (slot.current) busy++;
    return { workers: this.slots.size, busy, queued: this.queue.length };
  }

  /** The process ids of the worker processes alive (tests and diagnostics). */
  processIds(): number[] {
    return [...this.slots].flatMap((s) => (s.executor.pid !== undefined ? [s.executor.pid] : []));
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

  private kindOf(task: WorkerTask | string): Isolation {
    return this.isolation ?? isolationOf(task);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const kind = this.kindOf(this.queue[0]!.task);
      let slot = [...this.slots].find((s) => !s.current && !s.retiring && !s.checking && s.kind === kind);
      if (!slot) {
        if (this.slots.size >= this.size) {
          // An idle worker of the other kind makes room; otherwise the task waits its turn.
          const idle = [...this.slots].find((s) => !s.current && !s.retiring && !s.checking);
          if (!idle) return;
          void this.retire(idle);
        }
        slot = this.spawn(kind);
      }
      const pending = this.queue.shift()!;
      this.start(slot, pending);
    }
  }

  private spawn(kind: Isolation): Slot {
    const slot = { kind, current: undefined, timer: undefined, idleTimer: undefined, retiring: false, checking: false, ready: false } as Omit<Slot, 'executor'> as Slot;
    const events: ExecutorEvents = {
      ready: () => this.onReady(slot),
      reply: (reply) => this.onReply(slot, reply),
      failed: (failure) => this.onFailure(slot, failure),
    };
    slot.executor =
      kind === 'process'
        ? startProcess(this.processEntry, { rssMb: this.rssMb, memoryMb: this.memoryMb, stackMb: this.stackMb, variables: WORKER_LIMIT_VARIABLES, pollMs: this.rssPollMs }, events)
        : startThread(this.entry, { memoryMb: this.memoryMb, stackMb: this.stackMb }, events);
    this.started++;
    this.slots.add(slot);
    return slot;
  }

  private start(slot: Slot, pending: Pending): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.current = pending;
    slot.executor.busy(true);
    this.armTimer(slot, pending, slot.ready ? 0 : BOOT_ALLOWANCE_MS);
    const message: TaskMessage = { id: pending.id, task: addressOf(pending.task), payload: pending.payload };
    try {
      slot.executor.send(message, pending.options.transfer ?? []);
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
    // The setting is named only when it is the limit that applied (a caller may set its own).
    const limit = pending.options.timeoutMs === undefined ? `the conversion time limit, ${WORKER_LIMIT_VARIABLES.time}` : 'the conversion time limit';
    slot.timer = setTimeout(() => {
      const seconds = Math.round(timeoutMs / 100) / 10;
      const error = new RuntimeError('VALIDATION_ERROR', `${pending.options.label ?? 'The conversion'} did not finish within ${seconds} s and was stopped (${limit})`);
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
    if (reply.ok) {
      this.settle(pending, undefined, reply.value);
      this.release(slot);
      return;
    }
    const error = this.errorOf(slot, pending, reply.error);
    this.settle(pending, error);
    // A process whose allocation failed was at its limit: a fresh one takes the next task.
    if (slot.kind === 'process' && isAllocationFailure(reply.error)) void this.retire(slot, error);
    else this.release(slot);
  }

  /** A task's error as its caller gets it: limits it ran into become 422s naming them. */
  private errorOf(slot: Slot, pending: Pending, error: SerializedError): Error {
    const what = pending.options.label ?? 'The conversion';
    if (isStackOverflow(error)) {
      return new RuntimeError('VALIDATION_ERROR', `${what} is nested too deeply: reading it needed more than the ${this.stackMb} MB of stack a conversion may use (${WORKER_LIMIT_VARIABLES.stack})`);
    }
    if (slot.kind === 'process' && isAllocationFailure(error)) return this.limitError(what, { kind: 'rss', limitMb: this.rssMb });
    return reviveError(error);
  }

  private limitError(what: string, failure: WorkerFailure): RuntimeError {
    switch (failure.kind) {
      case 'thread-heap':
        return new RuntimeError('VALIDATION_ERROR', `${what} needed more memory than a conversion may use (${failure.limitMb} MB) and was stopped`, { cause: failure.cause });
      case 'process-heap':
        return new RuntimeError('VALIDATION_ERROR', `${what} needed more than ${failure.limitMb} MB of memory and was stopped (${failure.variable})`);
      case 'rss':
        return new RuntimeError('VALIDATION_ERROR', `${what} needed more than ${failure.limitMb} MB of memory and was stopped (${WORKER_LIMIT_VARIABLES.rss})`);
      case 'crash':
        return new RuntimeError('VALIDATION_ERROR', `${what} failed: the conversion worker stopped (${failure.detail})`, failure.cause ? { cause: failure.cause } : {});
      case 'exit':
        // An exit nobody asked for (process.exit in a library): the task cannot finish.
        return new RuntimeError('VALIDATION_ERROR', `${what} failed: the conversion worker exited (code ${failure.code})`);
    }
  }

  /** Marks a slot free and gives it the next task, or lets it idle. */
  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.current = undefined;
    if (slot.retiring) return;
    const reusable = slot.executor.reusable;
    if (!reusable) {
      this.reuse(slot);
      return;
    }
    // A process that kept much of its memory after the task is replaced rather than reused.
    slot.checking = true;
    void reusable().then(
      (yes) => {
        slot.checking = false;
        if (slot.retiring) return;
        if (yes) this.reuse(slot);
        else void this.retire(slot);
      },
      () => void this.retire(slot),
    );
  }

  private reuse(slot: Slot): void {
    if (this.queue.length > 0) {
      this.dispatch();
      if (slot.current || slot.retiring) return;
    }
    slot.executor.busy(false);
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
    // The only way to stop JavaScript that is running: end its worker.
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
      await slot.executor.terminate();
    } finally {
      // A replacement starts for tasks that were waiting.
      if (!this.closed) this.dispatch();
    }
  }

  /** A worker ended unasked: its task fails with what stopped it. */
  private onFailure(slot: Slot, failure: WorkerFailure): void {
    if (slot.retiring) return;
    void this.retire(slot, this.limitError(slot.current?.options.label ?? 'The conversion', failure));
  }
}
