/**
 * @module sessions/run-queue-store
 * One run at a time per session, across every runtime sharing the database: a new run is
 * admitted (recorded RUNNING, or PENDING behind the runs in progress) and a queued run is
 * started only inside a transaction that holds the session (its row locked on PostgreSQL; the
 * single writer on SQLite), so two messages sent at once to two runtimes cannot both start.
 * In progress means RUNNING under a live lease, or PENDING (queued): a RUNNING run whose lease
 * ran out belongs to a dead process and is left to the sweep.
 */
import type { Db, SqlClient } from '../storage/db.js';
import type { RunLease } from './run-lease-store.js';
import { upsertRun } from './session-store.js';
import type { RunRecord } from './types.js';

/** A session's run in progress. */
export interface RunInProgress {
  run_id: string;
  status: 'RUNNING' | 'PENDING';
}

/** Writes that belong with a run being queued (the job that will start it), in its transaction. */
export type Alongside = (tx: SqlClient, run: RunRecord) => Promise<void>;

export type Admission = { admitted: true } | { admitted: false; inProgress: RunInProgress[] };

export class RunQueueStore {
  constructor(private readonly db: Db) {}

  /** Takes the session for the rest of the transaction (PostgreSQL: a row lock; SQLite: the writer). */
  private async hold(tx: SqlClient, sessionId: string): Promise<void> {
    if (this.db.kind === 'postgres') await tx.query('SELECT session_id FROM svc_sessions WHERE session_id = $1 FOR UPDATE', [sessionId]);
  }

  private async inProgress(sql: SqlClient, sessionId: string, nowMs: number): Promise<RunInProgress[]> {
    return sql.query<RunInProgress>(
      `SELECT run_id, status FROM svc_runs WHERE session_id = $1
         AND (status = 'PENDING' OR (status = 'RUNNING' AND lease_expires_ms >= $2))
       ORDER BY started_ms, run_id`,
      [sessionId, nowMs],
    );
  }

  /** The session's runs in progress, oldest first. */
  async runsInProgress(sessionId: string): Promise<RunInProgress[]> {
    return this.inProgress(this.db, sessionId, Date.now());
  }

  /**
   * Records `run`: RUNNING under `lease` when the session has no run in progress, else refused;
   * or, with `queue`, PENDING (to be started by `startNext`) whatever is in progress, with
   * `alongside` written in the same transaction (the job that will start it).
   */
  async admit(
    run: RunRecord,
    options: { lease?: RunLease | undefined; queue: boolean; alongside?: Alongside | undefined },
  ): Promise<Admission> {
    return this.db.transaction(async (tx) => {
      await this.hold(tx, run.session_id);
      const busy = await this.inProgress(tx, run.session_id, Date.now());
      if (options.queue) {
        await upsertRun(tx, { ...run, status: 'PENDING' }, undefined);
        await options.alongside?.(tx, run);
      } else {
        if (busy.length > 0) return { admitted: false, inProgress: busy };
        await upsertRun(tx, { ...run, status: 'RUNNING' }, options.lease);
      }
      await tx.execute('UPDATE svc_sessions SET updated_at = $1 WHERE session_id = $2', [run.updated_at, run.session_id]);
      return { admitted: true };
    });
  }

  /**
   * Starts a queued run when it is first in its session's line: nothing RUNNING, and no PENDING
   * run before it. 'wait' when it is not its turn; 'gone' when it is no longer PENDING.
   */
  async startNext(runId: string, lease: RunLease): Promise<'started' | 'wait' | 'gone'> {
    const [row] = await this.db.query<{ session_id: string; status: string }>('SELECT session_id, status FROM svc_runs WHERE run_id = $1', [runId]);
    if (!row || row.status !== 'PENDING') return 'gone';
    return this.db.transaction(async (tx) => {
      await this.hold(tx, row.session_id);
      const busy = await this.inProgress(tx, row.session_id, Date.now());
      if (!busy.some((r) => r.run_id === runId)) return 'gone';
      if (busy.some((r) => r.status === 'RUNNING') || busy.find((r) => r.status === 'PENDING')?.run_id !== runId) return 'wait';
      const changed = await tx.execute(
        `UPDATE svc_runs SET status = 'RUNNING', run_owner = $1, run_node = $2, lease_expires_ms = $3, cancel_requested_ms = NULL
         WHERE run_id = $4 AND status = 'PENDING'`,
        [lease.owner, lease.node, lease.expiresMs, runId],
      );
      return changed === 1 ? 'started' : 'gone';
    });
  }
}
