/**
 * @module sessions/session-store
 * Sessions and runs in the `Db`, written once for SQLite and PostgreSQL.
 */
import { RuntimeError } from '../errors.js';
import type { Db, SqlClient, SqlValue } from '../storage/db.js';
import { isUniqueViolation } from '../storage/sql-errors.js';
import type { RunLease } from './run-lease-store.js';
import { epochSeconds, type RunRecord, type RunStatus, type SessionRecord, type SessionType } from './types.js';

export interface SessionQuery {
  type?: SessionType | undefined;
  component_id?: string | undefined;
  user_id?: string | undefined;
  /**
   * The user a confined caller is held to (auth/data-scope.ts), in the WHERE beside any
   * `user_id` it asks for: asking for another user's finds nothing.
   */
  owner?: string | undefined;
  /** Only this tenant's sessions (auth/tenancy.ts). */
  tenant_id?: string | undefined;
  /** Case-insensitive substring of the session name. */
  session_name?: string | undefined;
  limit: number;
  page: number;
  sort_by: 'created_at' | 'updated_at' | 'session_name';
  sort_order: 'asc' | 'desc';
}

export interface Page<T> {
  data: T[];
  total: number;
}

type Row = Record<string, unknown>;

function parseJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value !== 'string') return value as T;
  try {
    return JSON.parse(value) as T;
  } catch {
    // A row written by a newer or broken version must not make the whole list unreadable.
    return fallback;
  }
}

function toSession(row: Row): SessionRecord {
  return {
    session_id: String(row.session_id),
    session_type: row.session_type as SessionType,
    component_id: String(row.component_id),
    user_id: (row.user_id as string | null) ?? null,
    tenant_id: (row.tenant_id as string | null) ?? null,
    session_name: (row.session_name as string | null) ?? null,
    session_state: parseJson(row.session_state, null),
    metadata: parseJson(row.metadata, null),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

function toRun(row: Row): RunRecord {
  return {
    run_id: String(row.run_id),
    session_id: String(row.session_id),
    session_type: row.session_type as SessionType,
    component_id: String(row.component_id),
    user_id: (row.user_id as string | null) ?? null,
    tenant_id: (row.tenant_id as string | null) ?? null,
    status: row.status as RunRecord['status'],
    input: parseJson(row.input, { message: '' }),
    content: (row.content as string | null) ?? null,
    messages: parseJson(row.messages, []),
    tools: parseJson(row.tools, []),
    metrics: parseJson(row.metrics, { input_tokens: 0, output_tokens: 0, total_tokens: 0, duration: 0 }),
    error: (row.error as string | null) ?? null,
    started_ms: Number(row.started_ms),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

const SESSION_COLUMNS =
  'session_id, session_type, component_id, user_id, session_name, session_state, metadata, created_at, updated_at';
const RUN_COLUMNS =
  'run_id, session_id, session_type, component_id, user_id, status, input, content, messages, tools, metrics, error, started_ms, created_at, updated_at';
/** A run is written with its session's tenant, so no writer has to carry it. */
const RUN_TENANT = '(SELECT s.tenant_id FROM svc_sessions s WHERE s.session_id = $2)';

export class SessionStore {
  constructor(readonly db: Db) {}

  /**
   * Returns the session, creating it on first use. A session belongs to one component for
   * life: reusing its id for another agent is refused rather than mixing two histories.
   */
  async ensureSession(input: {
    session_id: string;
    session_type: SessionType;
    component_id: string;
    user_id: string | null;
    /** The tenant of the caller opening it (auth/tenancy.ts); a session of another is refused. */
    tenant_id?: string | null | undefined;
    session_name?: string | null;
  }): Promise<SessionRecord> {
    const existing = await this.getSession(input.session_id);
    if (existing) {
      this.assertOwner(existing, input);
      return existing;
    }
    const now = epochSeconds();
    try {
      await this.db.execute(
        `INSERT INTO svc_sessions (${SESSION_COLUMNS}, tenant_id) VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6, $6, $7)`,
        [input.session_id, input.session_type, input.component_id, input.user_id, input.session_name ?? null, now, input.tenant_id ?? null],
      );
    } catch (error) {
      // Two first runs of one new session raced; the other one created it.
      if (!isUniqueViolation(error)) throw error;
      const raced = await this.getSession(input.session_id);
      if (!raced) throw error;
      this.assertOwner(raced, input);
      return raced;
    }
    return (await this.getSession(input.session_id))!;
  }

  private assertOwner(
    session: SessionRecord,
    input: { session_type: SessionType; component_id: string; user_id: string | null; tenant_id?: string | null | undefined },
  ): void {
    // Under tenancy (input.tenant_id set) another tenant's session, or one from before
    // tenancy, is refused exactly like another user's: the id tells the caller nothing.
    if (input.tenant_id !== undefined && input.tenant_id !== null && session.tenant_id !== input.tenant_id) {
      throw new RuntimeError('FORBIDDEN', `Session '${session.session_id}' belongs to another user`);
    }
    if (session.session_type !== input.session_type || session.component_id !== input.component_id) {
      throw new RuntimeError(
        'CONFLICT',
        `Session '${session.session_id}' belongs to ${session.session_type} '${session.component_id}'; start a new session instead`,
      );
    }
    if (session.user_id !== null && input.user_id !== null && session.user_id !== input.user_id) {
      throw new RuntimeError('FORBIDDEN', `Session '${session.session_id}' belongs to another user`);
    }
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${SESSION_COLUMNS}, tenant_id FROM svc_sessions WHERE session_id = $1`, [sessionId]);
    return rows[0] ? toSession(rows[0]) : undefined;
  }

  async listSessions(query: SessionQuery): Promise<Page<SessionRecord>> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (clause: string, value: SqlValue) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (query.type) add('session_type = ?', query.type);
    if (query.component_id) add('component_id = ?', query.component_id);
    if (query.owner !== undefined) add('user_id = ?', query.owner);
    if (query.user_id && query.user_id !== query.owner) add('user_id = ?', query.user_id);
    if (query.tenant_id !== undefined) add('tenant_id = ?', query.tenant_id);
    if (query.session_name) {
      // The user's text is matched literally: % and _ in it are not wildcards.
      const literal = query.session_name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
      add("LOWER(session_name) LIKE ? ESCAPE '\\'", `%${literal}%`);
    }
    const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const totalRows = await this.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM svc_sessions ${filter}`, params);
    // sort_by comes from a closed enum, so it is safe to place in the SQL text.
    const order = `${query.sort_by} ${query.sort_order === 'asc' ? 'ASC' : 'DESC'}, session_id ASC`;
    const rows = await this.db.query<Row>(
      `SELECT ${SESSION_COLUMNS}, tenant_id FROM svc_sessions ${filter} ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, (query.page - 1) * query.limit],
    );
    return { data: rows.map(toSession), total: Number(totalRows[0]?.n ?? 0) };
  }

  async renameSession(sessionId: string, name: string): Promise<SessionRecord | undefined> {
    const changed = await this.db.execute('UPDATE svc_sessions SET session_name = $1, updated_at = $2 WHERE session_id = $3', [
      name,
      epochSeconds(),
      sessionId,
    ]);
    return changed ? this.getSession(sessionId) : undefined;
  }

  /** Deletes sessions and their runs; returns how many sessions existed. */
  async deleteSessions(sessionIds: readonly string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    return this.db.transaction(async (tx) => {
      let deleted = 0;
      for (const id of sessionIds) {
        // Runs go first explicitly: SQLite enforces ON DELETE CASCADE only with foreign_keys on.
        await tx.execute('DELETE FROM svc_run_events WHERE run_id IN (SELECT run_id FROM svc_runs WHERE session_id = $1)', [id]);
        await tx.execute('DELETE FROM svc_runs WHERE session_id = $1', [id]);
        deleted += await tx.execute('DELETE FROM svc_sessions WHERE session_id = $1', [id]);
      }
      return deleted;
    });
  }

  /**
   * Inserts or replaces a run, and touches its session's updated_at, atomically. A running run
   * is saved with the lease of the process that executes it.
   */
  async saveRun(run: RunRecord, lease?: RunLease): Promise<void> {
    await this.db.transaction(async (tx) => {
      await upsertRun(tx, run, lease);
      await tx.execute('UPDATE svc_sessions SET updated_at = $1 WHERE session_id = $2', [run.updated_at, run.session_id]);
    });
  }

  /**
   * Moves a run from one status to another only if it is still in the first, so that of two
   * callers continuing the same paused run (in one process or two), exactly one wins.
   */
  async transitionRun(runId: string, from: RunStatus, to: RunStatus, lease?: RunLease): Promise<boolean> {
    const changed = lease
      ? await this.db.execute(
          `UPDATE svc_runs SET status = $1, updated_at = $2, run_owner = $5, run_node = $6, lease_expires_ms = $7,
             cancel_requested_ms = NULL, mcp_request = $8
           WHERE run_id = $3 AND status = $4`,
          [to, epochSeconds(), runId, from, lease.owner, lease.node, lease.expiresMs, lease.mcpRequest ?? null],
        )
      : await this.db.execute('UPDATE svc_runs SET status = $1, updated_at = $2 WHERE run_id = $3 AND status = $4', [
          to,
          epochSeconds(),
          runId,
          from,
        ]);
    return changed === 1;
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${RUN_COLUMNS}, tenant_id FROM svc_runs WHERE run_id = $1`, [runId]);
    return rows[0] ? toRun(rows[0]) : undefined;
  }

  /**
   * The last `limit` runs of a session with this status, oldest first: the history a new run
   * replays, read without loading a long session's every run.
   */
  async recentRuns(sessionId: string, status: RunStatus, limit: number): Promise<RunRecord[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${RUN_COLUMNS}, tenant_id FROM svc_runs WHERE session_id = $1 AND status = $2 ORDER BY started_ms DESC, run_id DESC LIMIT $3`,
      [sessionId, status, limit],
    );
    return rows.map(toRun).toReversed();
  }

  /** Runs, oldest first; `user_id` and `tenant_id` confine them to a caller's (auth/data-scope.ts). */
  async listRuns(filter: {
    session_id?: string;
    session_type?: SessionType;
    component_id?: string;
    status?: string;
    user_id?: string | undefined;
    tenant_id?: string | undefined;
  }): Promise<RunRecord[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    for (const [column, value] of Object.entries(filter)) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    const rows = await this.db.query<Row>(
      `SELECT ${RUN_COLUMNS}, tenant_id FROM svc_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_ms ASC, run_id ASC`,
      params,
    );
    return rows.map(toRun);
  }
}

/** Inserts or replaces a run (with the lease of the process executing it, when given). */
export async function upsertRun(tx: SqlClient, run: RunRecord, lease: RunLease | undefined): Promise<void> {
  const values: SqlValue[] = [
    run.run_id,
    run.session_id,
    run.session_type,
    run.component_id,
    run.user_id,
    run.status,
    JSON.stringify(run.input),
    run.content,
    JSON.stringify(run.messages),
    JSON.stringify(run.tools),
    JSON.stringify(run.metrics),
    run.error,
    run.started_ms,
    run.created_at,
    run.updated_at,
  ];
  if (lease) {
    values.push(lease.owner, lease.node, lease.expiresMs, lease.mcpRequest ?? null);
    await tx.execute(
      `INSERT INTO svc_runs (${RUN_COLUMNS}, run_owner, run_node, lease_expires_ms, mcp_request, tenant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, ${RUN_TENANT})
       ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, content = excluded.content,
         messages = excluded.messages, tools = excluded.tools, metrics = excluded.metrics,
         error = excluded.error, updated_at = excluded.updated_at, run_owner = excluded.run_owner,
         run_node = excluded.run_node, lease_expires_ms = excluded.lease_expires_ms, mcp_request = excluded.mcp_request`,
      values,
    );
    return;
  }
  await tx.execute(
    `INSERT INTO svc_runs (${RUN_COLUMNS}, tenant_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, ${RUN_TENANT})
     ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, content = excluded.content,
       messages = excluded.messages, tools = excluded.tools, metrics = excluded.metrics,
       error = excluded.error, updated_at = excluded.updated_at`,
    values,
  );
}
