/**
 * @module traces/retention
 * Removes traces older than TRACE_RETENTION_DAYS: at start, then every hour while the runtime
 * lives, as a background chore (timers unref'd, never two sweeps at once). Several runtimes
 * sharing a database may sweep together: the deletes are idempotent.
 */
import type { Logger } from '../util/logger.js';
import type { TraceStore } from './trace-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TraceRetentionOptions {
  store: Pick<TraceStore, 'deleteBefore'>;
  log: Logger;
  /** 0 keeps traces forever (no sweeps). */
  retentionDays: number;
  /** Between sweeps (default 1 hour). */
  intervalMs?: number;
  now?: () => number;
}

export class TraceRetention {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();

  constructor(private readonly options: TraceRetentionOptions) {}

  start(): void {
    if (this.timer || this.options.retentionDays === 0) return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.options.intervalMs ?? 60 * 60 * 1000);
    this.timer.unref();
  }

  /** Stops sweeping; resolves once a sweep under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** One sweep, queued after the one under way. */
  sweep(): Promise<void> {
    const cutoff = (this.options.now ?? Date.now)() - this.options.retentionDays * DAY_MS;
    this.sweeping = this.sweeping.then(async () => {
      try {
        const removed = await this.options.store.deleteBefore(cutoff);
        if (removed > 0) this.options.log.info(`removed the traces of ${removed} run(s) older than ${this.options.retentionDays} day(s)`);
      } catch (error) {
        this.options.log.warn(`could not remove old traces: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    return this.sweeping;
  }
}
