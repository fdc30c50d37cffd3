/**
 * @module providers/local/scheduler
 * The order in which the embedded encoder's batches reach its workers. The worker pool's own
 * queue is first in, first out, so a search's one query would wait behind every batch an upload
 * queued before it (a few seconds each on two cores). Here a batch is handed to the pool only
 * when a worker is free, and a waiting `interactive` batch (a search) goes before bulk ones.
 *
 * A batch already handed over is not stopped when its caller gives up: stopping it would mean
 * ending the worker, and the next batch would pay the model's load again (about a second). Its
 * caller is answered at once with the abort's reason; the worker finishes the batch, bounded by
 * the batch size, and its answer is dropped.
 */

interface Waiting<T> {
  start: () => Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export interface ScheduleOptions {
  /** Served before queued bulk work. */
  interactive?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

export class PriorityScheduler {
  private readonly interactive: Waiting<unknown>[] = [];
  private readonly bulk: Waiting<unknown>[] = [];
  private running = 0;

  /** `slots`: how many started tasks may be unfinished at once (the workers behind them). */
  constructor(readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be a whole number of at least 1, got ${slots}`);
  }

  /** Tasks started and not finished, and tasks waiting (for tests and diagnostics). */
  stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.interactive.length + this.bulk.length };
  }

  /** Runs `start` once a slot is free (interactive work first) and answers with its result. */
  run<T>(start: () => Promise<T>, options: ScheduleOptions = {}): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting<T> = { start, resolve, reject, signal, onAbort: () => this.abandon(waiting as Waiting<unknown>) };
      signal?.addEventListener('abort', waiting.onAbort, { once: true });
      (options.interactive ? this.interactive : this.bulk).push(waiting as Waiting<unknown>);
      this.next();
    });
  }

  /** A caller that gave up: out of the queue if it waits there, else answered now and its result dropped later. */
  private abandon(waiting: Waiting<unknown>): void {
    for (const queue of [this.interactive, this.bulk]) {
      const at = queue.indexOf(waiting);
      if (at >= 0) queue.splice(at, 1);
    }
    waiting.reject(waiting.signal!.reason);
  }

  private next(): void {
    while (this.running < this.slots) {
      const waiting = this.interactive.shift() ?? this.bulk.shift();
      if (!waiting) return;
      this.running++;
      let started: Promise<unknown>;
      try {
        started = waiting.start();
      } catch (error) {
        started = Promise.reject(error);
      }
      // Settling a promise twice does nothing, so an abandoned caller keeps the abort's reason.
      void started.then(waiting.resolve, waiting.reject).finally(() => {
        waiting.signal?.removeEventListener('abort', waiting.onAbort);
        this.running--;
        this.next();
      });
    }
  }
}
