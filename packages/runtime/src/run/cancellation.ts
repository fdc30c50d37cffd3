/**
 * @module run/cancellation
 * Cancelling a run wherever it executes (see docs/ARCHITECTURE.md, "Runs carry a lease"): here
 * at once; in another runtime sharing the database through a request its owner reads within a
 * second; a run whose process died, or one paused for a decision, is ended by the canceller with
 * a compare-and-set on its status. Partial output is kept.
 */
import { RuntimeError } from '../errors.js';
import type { RunLeaseStore } from '../sessions/run-lease-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { RunRecord, RunStatus } from '../sessions/types.js';

/** Bus channel: "cancel run <id>", acted on by whichever runtime executes it. */
export const CANCEL_CHANNEL = 'svc_run_cancel';

const FINAL: ReadonlySet<RunStatus> = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

/** What a cancel request found and did. */
export interface CancelOutcome {
  /** True when this request ended the run as CANCELLED. */
  cancelled: boolean;
  /** The run's status after the request. */
  status: RunStatus;
  /** True when the run had already ended before the request (nothing to cancel). */
  alreadyFinished: boolean;
}

/** A run executing in this process, as cancelling it needs it. */
export interface LocalRun {
  cancel: (reason: string) => void;
  done: Promise<RunRecord>;
}

/** The database side of cancelling: the run records and their leases. */
export interface CancelStores {
  store: SessionStore;
  leases: RunLeaseStore;
}

/**
 * Cancels `runId`: `local` when it executes in this process; otherwise through the database,
 * waiting up to `waitMs` for its owner to end it.
 */
export async function cancelRun(stores: CancelStores, local: LocalRun | undefined, runId: string, reason: string, waitMs: number): Promise<CancelOutcome> {
  if (local) {
    local.cancel(reason);
    const ended = await local.done;
    return { cancelled: ended.status === 'CANCELLED', status: ended.status, alreadyFinished: false };
  }
  const { store, leases } = stores;
  const deadline = Date.now() + waitMs;
  let requested = false;
  for (;;) {
    const record = await store.getRun(runId);
    if (!record) throw new RuntimeError('NOT_FOUND', 'Run not found');
    if (FINAL.has(record.status)) {
      return { cancelled: requested && record.status === 'CANCELLED', status: record.status, alreadyFinished: !requested };
    }
    if (record.status === 'PENDING') {
      // Queued, not started: ended here (run/run-queue.ts's cancelQueued also stores its event).
      if (await store.transitionRun(runId, 'PENDING', 'CANCELLED')) return { cancelled: true, status: 'CANCELLED', alreadyFinished: false };
      continue;
    }
    if (record.status === 'PAUSED') {
      if (await store.transitionRun(runId, 'PAUSED', 'CANCELLED')) return { cancelled: true, status: 'CANCELLED', alreadyFinished: false };
      continue; // continued or cancelled meanwhile: look again
    }
    if (await leases.finishOrphan(runId, 'CANCELLED', null)) return { cancelled: true, status: 'CANCELLED', alreadyFinished: false };
    if (!requested) requested = await requestCancel(stores, runId);
    if (Date.now() >= deadline) return { cancelled: false, status: record.status, alreadyFinished: false };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Asks whichever runtime executes `runId` to cancel it; false when it is not running. */
export async function requestCancel({ store, leases }: CancelStores, runId: string): Promise<boolean> {
  const requested = await leases.requestCancel(runId);
  // The owner also polls for the request; the message only makes it act at once.
  if (requested) await store.db.notifications().publish(CANCEL_CHANNEL, runId).catch(() => undefined);
  return requested;
}
