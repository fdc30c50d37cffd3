/**
 * @module run/chores
 * The runner's bookkeeping in the database, one statement at a time (see docs/ARCHITECTURE.md,
 * "Runs carry a lease"): while runs are active, storing their streamed events (often: followers
 * on other runtimes wait on them) and partial output, renewing this process's leases, and acting
 * on cancel requests other runtimes left; while the runtime lives, sweeping runs whose lease ran
 * out, and deleting expired idempotency keys.
 */
import { IdempotencyStore } from '../idempotency/idempotency-store.js';
import { RUN_EVENTS_CHANNEL, type RunEventStore, type StoredRunEvent } from '../sessions/run-event-store.js';
import type { RunLease, RunLeaseStore } from '../sessions/run-lease-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Logger } from '../util/logger.js';
import { CANCEL_CHANNEL, type LocalRun } from './cancellation.js';

/** A run executing in this process. */
export interface ActiveRun extends LocalRun {
  /** The text streamed so far, and how much of it is stored. */
  streamed: () => string;
  storedLength: number;
  /** Events streamed but not stored yet (see RunEventLog). */
  unstored: StoredRunEvent[];
  /** Ends the run's trace as an error now (shutdown gives up on a run that would not stop). */
  endTrace: (error: string) => void;
}

export interface RunChoresOptions {
  store: SessionStore;
  leases: RunLeaseStore;
  events: RunEventStore;
  log: Logger;
  /** This process, as the owner of the runs it executes. */
  owner: string;
  /** The runs executing in this process, kept by the runner. */
  active: ReadonlyMap<string, ActiveRun>;
  leaseMs: number;
  progressIntervalMs: number;
  eventsIntervalMs: number;
  /** Cancels a run of this process without waiting; false when it is not active here. */
  cancelLocal: (runId: string, reason: string) => boolean;
}

/** How often expired idempotency keys are deleted. */
const KEY_SWEEP_MS = 60_000;

export class RunChores {
  private node: string | null = null;
  private progressDueAt = 0;
  private progressTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private renewAt = 0;
  private chores: Promise<void> = Promise.resolve();
  private readonly idempotency: IdempotencyStore;
  private keysSweptAt = 0;

  constructor(private readonly options: RunChoresOptions) {
    this.idempotency = new IdempotencyStore(options.store.db);
  }

  /** The lease a run of this process is saved with. */
  lease(mcpRequest?: string): RunLease {
    return { owner: this.options.owner, node: this.node, expiresMs: Date.now() + this.options.leaseMs, mcpRequest: mcpRequest ?? null };
  }

  /** Listens for cancel requests, and sweeps now and every half lease. */
  startMaintenance(): void {
    if (this.sweepTimer) return;
    const { store, cancelLocal, leaseMs } = this.options;
    store.db.notifications().subscribe(CANCEL_CHANNEL, (runId) => void cancelLocal(runId, 'cancelled by request'));
    this.queueChore(() => this.sweep());
    this.sweepTimer = setInterval(() => this.queueChore(() => this.sweep()), Math.max(50, leaseMs / 2));
    this.sweepTimer.unref();
  }

  stopMaintenance(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** Names this process's host and port, and sweeps what an earlier process under that name left. */
  async adoptNode(node: string): Promise<void> {
    this.node = node;
    this.queueChore(() => this.sweep());
    await this.chores;
  }

  /** Resolves once the chores queued so far have run. */
  idle(): Promise<void> {
    return this.chores;
  }

  /** Runs one piece of background bookkeeping after the previous one, never two at once. */
  private queueChore(chore: () => Promise<void>): void {
    this.chores = this.chores.then(chore).catch((error: unknown) => this.options.log.warn(`run bookkeeping failed: ${describeError(error)}`));
  }

  private async sweep(): Promise<void> {
    const interrupted = await this.options.leases.interruptOrphans({ node: this.node, self: this.options.owner });
    if (interrupted.length) this.options.log.warn(`marked ${interrupted.length} interrupted run(s) as ERROR: ${interrupted.join(', ')}`);
    // Idempotency keys past their 24 hours, at most once a minute (one indexed DELETE).
    if (Date.now() - this.keysSweptAt >= KEY_SWEEP_MS) {
      this.keysSweptAt = Date.now();
      await this.idempotency.deleteExpired();
    }
  }

  /** Starts the progress chores when a run starts (a no-op while they run). */
  startProgress(): void {
    if (this.progressTimer) return;
    const { leaseMs, progressIntervalMs, eventsIntervalMs } = this.options;
    this.renewAt = Date.now() + leaseMs / 3;
    this.progressDueAt = Date.now() + progressIntervalMs;
    this.progressTimer = setInterval(() => this.queueChore(() => this.tick()), eventsIntervalMs);
    this.progressTimer.unref();
  }

  stopProgress(): void {
    clearInterval(this.progressTimer);
    this.progressTimer = undefined;
  }

  /** Stores new events often (followers wait on them), and the rest of the progress less often. */
  private async tick(): Promise<void> {
    for (const [runId, run] of this.options.active) await this.storeEvents(runId, run.unstored);
    if (Date.now() < this.progressDueAt) return;
    this.progressDueAt = Date.now() + this.options.progressIntervalMs;
    await this.progress();
  }

  /** Stores (and empties) a run's unstored events, then tells followers on every runtime. */
  async storeEvents(runId: string, unstored: StoredRunEvent[]): Promise<void> {
    if (unstored.length === 0) return;
    const batch = unstored.splice(0, unstored.length);
    try {
      await this.options.events.append(runId, batch);
    } catch (error) {
      unstored.unshift(...batch);
      throw error;
    }
    await this.options.store.db.notifications().publish(RUN_EVENTS_CHANNEL, runId).catch(() => undefined);
  }

  /** Stores new partial output, renews leases when due, and applies cancel requests from elsewhere. */
  private async progress(): Promise<void> {
    const { active, leases, owner, leaseMs, cancelLocal } = this.options;
    if (active.size === 0) return;
    for (const [runId, run] of active) {
      const text = run.streamed();
      if (text.length === run.storedLength) continue;
      await leases.saveProgress(runId, owner, text);
      run.storedLength = text.length;
    }
    if (Date.now() >= this.renewAt) {
      this.renewAt = Date.now() + leaseMs / 3;
      await leases.renew(owner, Date.now() + leaseMs);
    }
    for (const runId of await leases.cancelRequests(owner)) cancelLocal(runId, 'cancelled by request');
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
