/**
 * @module sessions/run-lease-store
 * Who is executing each running run, and the requests other processes leave for it. Every
 * runtime sharing a database reads and writes these columns of `svc_runs`, so a run can be
 * cancelled from anywhere and a run whose process died is finalised by whoever notices first.
 */
import type { Db } from '../storage/db.js';
import { epochSeconds } from './types.js';

/** The claim a process holds on a run it executes. */
export interface RunLease {
  /** The executing process (random per process). */
  owner: string;
  /** The owner's host and port when it serves HTTP, else null. */
  node: string | null;
  /** The claim ends here unless the owner renews it (epoch ms). */
  expiresMs: number;
  /** Digest of the MCP client session and request id that started the run, if any. */
  mcpRequest?: string | null | undefined;
}

export const INTERRUPTED_MESSAGE = 'Run interrupted: the runtime executing it stopped before the run finished';
export const SHUTDOWN_MESSAGE = 'Run interrupted: the runtime shut down and the run did not stop within the shutdown timeout';

export class RunLeaseStore {
  constructor(private readonly db: Db) {}

  /** Extends the leases of every run this process still executes. */
  async renew(owner: string, expiresMs: number): Promise<number> {
    return this.db.execute("UPDATE svc_runs SET lease_expires_ms = $1 WHERE run_owner = $2 AND status = 'RUNNING'", [expiresMs, owner]);
  }

  /** Stores the output a run has produced so far, unless it has ended or changed hands meanwhile. */
  async saveProgress(runId: string, owner: string, content: string): Promise<void> {
    await this.db.execute("UPDATE svc_runs SET content = $1, updated_at = $2 WHERE run_id = $3 AND run_owner = $4 AND status = 'RUNNING'", [
      content,
      epochSeconds(),
      runId,
      owner,
    ]);
  }

  /** Runs of this owner that someone asked to cancel. */
  async cancelRequests(owner: string): Promise<string[]> {
    const rows = await this.db.query<{ run_id: string }>(
      "SELECT run_id FROM svc_runs WHERE run_owner = $1 AND status = 'RUNNING' AND cancel_requested_ms IS NOT NULL",
      [owner],
    );
    return rows.map((r) => r.run_id);
  }

  /** Asks whichever process executes the run to cancel it; false when it is not running. */
  async requestCancel(runId: string, nowMs = Date.now()): Promise<boolean> {
    return (await this.db.execute("UPDATE svc_runs SET cancel_requested_ms = $1 WHERE run_id = $2 AND status = 'RUNNING'", [nowMs, runId])) === 1;
  }

  /** The running run an MCP request started, if it is still running. */
  async findByMcpRequest(digest: string): Promise<string | undefined> {
    const rows = await this.db.query<{ run_id: string }>("SELECT run_id FROM svc_runs WHERE mcp_request = $1 AND status = 'RUNNING'", [digest]);
    return rows[0]?.run_id;
  }

  /**
   * Ends a running run nobody executes any more (its lease ran out, or it predates leases) with
   * `status`, keeping the output stored so far. False when its owner is alive or it has ended.
   */
  async finishOrphan(runId: string, status: 'CANCELLED' | 'ERROR', error: string | null, nowMs = Date.now()): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_runs SET status = $1, error = $2, updated_at = $3, lease_expires_ms = NULL
       WHERE run_id = $4 AND status = 'RUNNING' AND (lease_expires_ms IS NULL OR lease_expires_ms < $5)`,
      [status, error, epochSeconds(nowMs), runId, nowMs],
    );
    return changed === 1;
  }

  /**
   * Marks runs this process still executes as interrupted (it is shutting down without them).
   * Their traces are ended by the runner, in process (run/runner.ts's shutdown): their summaries
   * may not have reached the database yet, and a second end here would add the run's duration
   * to the summary twice.
   */
  async interruptOwned(owner: string, runIds: readonly string[], nowMs = Date.now()): Promise<void> {
    for (const runId of runIds) {
      await this.db.execute(
        "UPDATE svc_runs SET status = 'ERROR', error = $1, updated_at = $2, lease_expires_ms = NULL WHERE run_id = $3 AND run_owner = $4 AND status = 'RUNNING'",
        [SHUTDOWN_MESSAGE, epochSeconds(nowMs), runId, owner],
      );
    }
  }

  /**
   * Ends the trace summaries (svc_traces, written RUNNING when a run starts) of runs finalised
   * here, so a run whose runtime died shows in GET /traces as the error it became, with the
   * spans its runtime wrote up to its last second.
   */
  private async closeTraces(runIds: readonly string[], message: string, nowMs: number): Promise<void> {
    for (const runId of runIds) {
      await this.db.execute(
        "UPDATE svc_traces SET status = 'ERROR', error = $1, end_ms = $2, duration_ms = $2 - start_ms WHERE trace_id = $3 AND status = 'RUNNING'",
        [message, nowMs, runId],
      );
    }
  }

  /**
   * Marks runs whose executing process is gone as ERROR ("interrupted"), keeping their stored
   * output: every run whose lease ran out, and every run of an earlier process on `node` (this
   * process holds that port now, so the earlier one has exited). Returns the ids it finalised.
   */
  async interruptOrphans(options: { nowMs?: number; node?: string | null; self?: string } = {}): Promise<string[]> {
    const nowMs = options.nowMs ?? Date.now();
    const expired = '(lease_expires_ms IS NULL OR lease_expires_ms < $1)';
    const params = [nowMs, INTERRUPTED_MESSAGE, epochSeconds(nowMs)];
    let where = expired;
    if (options.node && options.self) {
      params.push(options.node, options.self);
      where = `(${expired} OR (run_node = $4 AND run_owner <> $5))`;
    }
    const rows = await this.db.query<{ run_id: string }>(
      `UPDATE svc_runs SET status = 'ERROR', error = $2, updated_at = $3, lease_expires_ms = NULL
       WHERE status = 'RUNNING' AND ${where} RETURNING run_id`,
      params,
    );
    const ids = rows.map((r) => r.run_id);
    await this.closeTraces(ids, INTERRUPTED_MESSAGE, nowMs);
    return ids;
  }
}
