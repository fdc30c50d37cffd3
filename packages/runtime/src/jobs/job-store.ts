/**
 * @module jobs/job-store
 * Durable jobs in the runtime's database (`svc_jobs`), written once for SQLite and PostgreSQL.
 * A job is claimed with a lease; on PostgreSQL the claim skips rows another runtime is claiming
 * (`FOR UPDATE SKIP LOCKED`), on SQLite the single writer makes the claim statement atomic.
 * A finished job's row is deleted; a failed one is kept (without its data) with its error.
 */
import { randomUUID } from 'node:crypto';
import type { Db, SqlClient, SqlValue } from '../storage/db.js';

export type JobStatus = 'queued' | 'running' | 'failed';

export interface NewJob {
  kind: string;
  /** What the job works on (a content id), so it can be found and cancelled by it. */
  ref?: string | undefined;
  payload: Record<string, unknown>;
  /** Input bytes (an upload), kept with the job until it finishes. */
  data?: Uint8Array | undefined;
  /** Attempts before the job fails for good; default 5. */
  maxAttempts?: number | undefined;
}

export interface Job {
  id: string;
  kind: string;
  ref: string | null;
  payload: Record<string, unknown>;
  data: Uint8Array | null;
  status: JobStatus;
  /** Claims so far, this one included. */
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  createdMs: number;
}

interface Row {
  id: string;
  kind: string;
  ref: string | null;
  payload: string;
  data: Uint8Array | null;
  status: string;
  attempts: number | string;
  max_attempts: number | string;
  last_error: string | null;
  created_ms: number | string;
}

const COLUMNS = 'id, kind, ref, payload, data, status, attempts, max_attempts, last_error, created_ms';

function toJob(row: Row): Job {
  return {
    id: row.id,
    kind: row.kind,
    ref: row.ref,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    data: row.data === null ? null : new Uint8Array(row.data),
    status: row.status as JobStatus,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    lastError: row.last_error,
    createdMs: Number(row.created_ms),
  };
}

export class JobStore {
  constructor(private readonly db: Db) {}

  /** Records a job ready to run; pass the transaction that records what the job is for. */
  async enqueue(job: NewJob, sql: SqlClient = this.db): Promise<string> {
    const id = randomUUID();
    const now = Date.now();
    await sql.execute(
      `INSERT INTO svc_jobs (id, kind, ref, payload, data, status, attempts, max_attempts, run_after_ms, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, $7, $7, $7)`,
      [id, job.kind, job.ref ?? null, JSON.stringify(job.payload), job.data ?? null, job.maxAttempts ?? 5, now],
    );
    return id;
  }

  /**
   * Takes the oldest ready job of these kinds: queued and due, or running under a lease that ran
   * out (its worker died). Increments its attempts and leases it to `owner`.
   */
  async claim(owner: string, kinds: readonly string[], leaseMs: number, nowMs = Date.now()): Promise<Job | undefined> {
    if (kinds.length === 0) return undefined;
    const params: SqlValue[] = [nowMs];
    const kindList = kinds.map((k) => {
      params.push(k);
      return `$${params.length}`;
    });
    const ready = `kind IN (${kindList.join(', ')}) AND ((status = 'queued' AND run_after_ms <= $1) OR (status = 'running' AND lease_expires_ms < $1))`;
    // A read first: an idle poll then takes no write lock (SQLite) and no row locks (PostgreSQL).
    const [any] = await this.db.query<{ id: string }>(`SELECT id FROM svc_jobs WHERE ${ready} LIMIT 1`, params);
    if (!any) return undefined;
    const skipLocked = this.db.kind === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    params.push(owner, nowMs + leaseMs);
    const rows = await this.db.query<Row>(
      `UPDATE svc_jobs SET status = 'running', attempts = attempts + 1, lease_owner = $${params.length - 1},
         lease_expires_ms = $${params.length}, updated_ms = $1
       WHERE id IN (SELECT id FROM svc_jobs WHERE ${ready} ORDER BY run_after_ms, created_ms LIMIT 1 ${skipLocked})
       RETURNING ${COLUMNS}`,
      params,
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** Extends the leases of the given jobs that `owner` still holds. */
  async renew(owner: string, ids: readonly string[], leaseMs: number): Promise<void> {
    for (const id of ids) {
      await this.db.execute("UPDATE svc_jobs SET lease_expires_ms = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'running'", [
        Date.now() + leaseMs,
        id,
        owner,
      ]);
    }
  }

  /** Removes a finished job; false when the lease was lost (another worker took it over). */
  async complete(id: string, owner: string): Promise<boolean> {
    return (await this.db.execute("DELETE FROM svc_jobs WHERE id = $1 AND lease_owner = $2 AND status = 'running'", [id, owner])) === 1;
  }

  /** Puts a job back in the queue to run again at `runAfterMs`, recording why it failed. */
  async retry(id: string, owner: string, error: string, runAfterMs: number): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_jobs SET status = 'queued', lease_owner = NULL, lease_expires_ms = NULL, last_error = $1, run_after_ms = $2, updated_ms = $3
       WHERE id = $4 AND lease_owner = $5 AND status = 'running'`,
      [error, runAfterMs, Date.now(), id, owner],
    );
    return changed === 1;
  }

  /** Gives up on a job: kept as failed with its error, its data dropped. */
  async fail(id: string, owner: string, error: string): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_jobs SET status = 'failed', lease_owner = NULL, lease_expires_ms = NULL, last_error = $1, data = NULL, updated_ms = $2
       WHERE id = $3 AND lease_owner = $4 AND status = 'running'`,
      [error, Date.now(), id, owner],
    );
    return changed === 1;
  }

  /** Hands a job back unfinished (shutdown): it runs again, and this attempt does not count. */
  async release(id: string, owner: string): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_jobs SET status = 'queued', lease_owner = NULL, lease_expires_ms = NULL, attempts = attempts - 1, updated_ms = $1
       WHERE id = $2 AND lease_owner = $3 AND status = 'running'`,
      [Date.now(), id, owner],
    );
    return changed === 1;
  }

  async get(id: string): Promise<Job | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_jobs WHERE id = $1`, [id]);
    return row ? toJob(row) : undefined;
  }

  /** Jobs working on `ref` (queued, running or failed). */
  async byRef(ref: string): Promise<Job[]> {
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_jobs WHERE ref = $1 ORDER BY created_ms`, [ref]);
    return rows.map(toJob);
  }

  /** Deletes every job of `ref` (what it worked on is gone); a running one finds out when it ends. */
  async deleteByRef(ref: string, sql: SqlClient = this.db): Promise<number> {
    return sql.execute('DELETE FROM svc_jobs WHERE ref = $1', [ref]);
  }
}
