/**
 * @module jobs/job-worker
 * Runs durable jobs: claims ready ones of the kinds it has handlers for (a few at a time),
 * renews their leases while they run, retries failures with exponential backoff, and gives up
 * after a job's attempts. Any runtime on the same database may run any job; one that dies
 * mid-job loses its lease and another (or its own restart) takes the job over, once: a job
 * whose runtime died on it twice (a poison input) fails instead of crash-looping every runtime.
 */
import { randomUUID } from 'node:crypto';
import { isStackOverflow, RuntimeError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import type { Job, JobStore } from './job-store.js';

/** A job that cannot start yet (it waits for another): queued again, the attempt not counted. */
export interface JobDeferral {
  retryAfterMs: number;
}

export interface JobHandler {
  /**
   * Does the work. Throwing retries the job, unless the error says the input is bad (a 4xx);
   * answering a deferral hands it back to run again later.
   */
  run(job: Job, signal: AbortSignal): Promise<void | JobDeferral>;
  /** Called once when the job fails for good (a 4xx, or its last attempt failed). */
  failed?(job: Job, message: string): Promise<void>;
}

export interface JobWorkerOptions {
  store: JobStore;
  log: Logger;
  /** How long a claim lasts without renewal; default 30 s. */
  leaseMs?: number;
  /** How often an idle worker looks for work; default 500 ms (new local jobs wake it at once). */
  pollMs?: number;
  /** Jobs run at once by this process; default 2. */
  concurrency?: number;
  /** First retry delay, doubled each attempt up to maxRetryMs; default 1 s and 60 s. */
  retryBaseMs?: number;
  maxRetryMs?: number;
  /** Attempts ended by a dead runtime after which a job fails instead of running again; default 2. */
  maxCrashes?: number;
}

/** What a job that crashed its runtimes fails with. */
export function crashedMessage(crashes: number): string {
  const times = crashes === 2 ? 'twice' : `${crashes} times`;
  return `The runtime stopped ${times} while processing this job (it was killed, or ran out of memory), so it was not tried again`;
}

/**
 * A failure retrying cannot help: bad input the caller should read (a 4xx, which includes a
 * worker stopped by a memory, stack or time limit), or a stack overflow (the same input
 * overflows again).
 */
function isPermanent(error: unknown): boolean {
  return (RuntimeError.isInstance(error) && error.status < 500) || isStackOverflow(error as Error);
}

/** The message safe to keep and show: typed errors say what was wrong, others are only logged. */
export function jobFailureMessage(error: unknown): string {
  if (RuntimeError.isInstance(error)) return error.message;
  if (isStackOverflow(error as Error)) return 'The job failed: its input is nested too deeply to process (the stack overflowed), so it was not tried again';
  return 'The job failed because of an internal error (see the runtime log)';
}

export class JobWorker {
  /** This process, as the holder of the leases it takes. */
  readonly owner = randomUUID();
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  readonly store: JobStore;
  private readonly log: Logger;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryMs: number;
  private readonly maxCrashes: number;
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private started = false;

  constructor(options: JobWorkerOptions) {
    this.store = options.store;
    this.log = options.log;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 500;
    this.concurrency = options.concurrency ?? 2;
    this.retryBaseMs = options.retryBaseMs ?? 1000;
    this.maxRetryMs = options.maxRetryMs ?? 60_000;
    this.maxCrashes = options.maxCrashes ?? 2;
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
    this.wake();
  }

  /** Starts looking for work (once the database is migrated). Idempotent. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.pollTimer.unref();
    this.renewTimer = setInterval(() => void this.renew(), Math.max(50, this.leaseMs / 3));
    this.renewTimer.unref();
    this.wake();
  }

  /** Looks for work now (a job was just queued here). */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = this.fill()
      .catch((error: unknown) => this.log.warn(`job worker: could not claim work: ${jobFailureMessage(error)}`))
      .finally(() => {
        this.polling = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Jobs running in this process right now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Stops claiming, cancels what runs here and hands it back to the queue (so this runtime's
   * restart or another runtime finishes it), waiting at most `boundMs` for handlers to stop.
   */
  async stop(boundMs = 10_000): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearInterval(this.renewTimer);
    await this.polling;
    for (const { controller } of this.running.values()) controller.abort(new RuntimeError('SERVICE_UNAVAILABLE', 'The runtime is shutting down'));
    const all = Promise.all([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
    await Promise.race([all, bound]);
    clearTimeout(timer);
    if (this.running.size > 0) this.log.warn(`job worker: ${this.running.size} job(s) still running at shutdown; their leases will run out and another runtime will take them`);
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.running.size < this.concurrency) {
      const job = await this.store.claim(this.owner, [...this.handlers.keys()], this.leaseMs);
      if (!job) return;
      this.launch(job);
    }
  }

  private launch(job: Job): void {
    const controller = new AbortController();
    const done = this.execute(job, controller.signal).finally(() => {
      this.running.delete(job.id);
      // A slot is free: look for the next job now rather than at the next poll.
      this.wake();
    });
    this.running.set(job.id, { controller, done });
  }

  private async execute(job: Job, signal: AbortSignal): Promise<void> {
    const handler = this.handlers.get(job.kind)!;
    try {
      if (job.crashes >= this.maxCrashes) {
        // Its runtime died on it (again): running it once more may kill this one too.
        this.log.warn(`job ${job.id} (${job.kind}): the runtime stopped ${job.crashes} times while running it; failing it`);
        await this.giveUp(job, handler, crashedMessage(job.crashes));
        return;
      }
      if (job.attempts > job.maxAttempts) {
        // Claimed again after its last attempt's worker died: nothing left to try.
        await this.giveUp(job, handler, job.lastError ?? `Gave up after ${job.maxAttempts} attempts`);
        return;
      }
      const deferral = await handler.run(job, signal);
      if (deferral) {
        await this.store.release(job.id, this.owner, Date.now() + deferral.retryAfterMs);
        return;
      }
      if (!(await this.store.complete(job.id, this.owner))) this.log.warn(`job ${job.id} (${job.kind}) finished after its lease was taken over`);
    } catch (error) {
      if (signal.aborted) {
        await this.store.release(job.id, this.owner).catch(() => undefined);
        return;
      }
      const message = jobFailureMessage(error);
      if (!RuntimeError.isInstance(error)) this.log.error(`job ${job.id} (${job.kind}) failed`, error);
      if (isPermanent(error) || job.attempts >= job.maxAttempts) {
        await this.giveUp(job, handler, message);
        return;
      }
      const delay = Math.min(this.maxRetryMs, this.retryBaseMs * 2 ** (job.attempts - 1));
      await this.store.retry(job.id, this.owner, message, Date.now() + delay).catch((e: unknown) => this.log.error(`job ${job.id}: could not schedule a retry`, e));
    }
  }

  private async giveUp(job: Job, handler: JobHandler, message: string): Promise<void> {
    try {
      await handler.failed?.(job, message);
    } catch (error) {
      this.log.error(`job ${job.id} (${job.kind}): its failure could not be recorded`, error);
    }
    await this.store.fail(job.id, this.owner, message).catch((e: unknown) => this.log.error(`job ${job.id}: could not mark it failed`, e));
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0) return;
    await this.store.renew(this.owner, [...this.running.keys()], this.leaseMs).catch((e: unknown) => this.log.warn(`job worker: could not renew leases: ${jobFailureMessage(e)}`));
  }
}
