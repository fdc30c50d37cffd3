/**
 * @module traces/trace-store
 * The trace tables: batched writes, the filtered listing (one query per page, newest first, by
 * a keyset cursor so a page costs the same at any depth), one run's spans, and retention.
 */
import type { Db, SqlClient, SqlValue } from '../storage/db.js';
import type { SerializedSpan, SpanRow, TraceRow } from './rows.js';

export interface TraceFilter {
  componentType?: 'agent' | 'team' | 'workflow' | undefined;
  componentId?: string | undefined;
  sessionId?: string | undefined;
  userId?: string | undefined;
  /** Only this tenant's runs (auth/tenancy.ts). */
  tenantId?: string | undefined;
  status?: string | undefined;
  fromMs?: number | undefined;
  toMs?: number | undefined;
  minDurationMs?: number | undefined;
}

/** Where a page starts: after this (start_ms, trace_id) in newest-first order. */
export interface TraceCursor {
  startMs: number;
  traceId: string;
}

const SPAN_COLUMNS = 13;
/** Rows per INSERT: 13 parameters each keeps a statement well under SQLite's parameter limit. */
const SPANS_PER_STATEMENT = 200;

const TRACE_COLUMNS = 'trace_id, session_id, component_type, component_id, user_id, status, error, start_ms, end_ms, duration_ms, input_tokens, output_tokens';

export class TraceStore {
  constructor(readonly db: Db) {}

  /** Writes spans (already serialised attributes) and run summaries in one transaction. */
  async write(spans: readonly SerializedSpan[], traces: readonly TraceRow[]): Promise<void> {
    if (spans.length === 0 && traces.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < spans.length; i += SPANS_PER_STATEMENT) await insertSpans(tx, spans.slice(i, i + SPANS_PER_STATEMENT));
      for (const t of traces) await upsertTrace(tx, t);
    });
  }

  /** A page of run summaries, newest first; one query. */
  async list(filter: TraceFilter, limit: number, after?: TraceCursor): Promise<TraceRow[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (clause: (p: string) => string, value: SqlValue) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (filter.componentType) add((p) => `component_type = ${p}`, filter.componentType);
    if (filter.componentId) add((p) => `component_id = ${p}`, filter.componentId);
    if (filter.sessionId) add((p) => `session_id = ${p}`, filter.sessionId);
    if (filter.userId !== undefined) add((p) => `user_id = ${p}`, filter.userId);
    if (filter.tenantId !== undefined) add((p) => `tenant_id = ${p}`, filter.tenantId);
    if (filter.status) add((p) => `status = ${p}`, filter.status);
    if (filter.fromMs !== undefined) add((p) => `start_ms >= ${p}`, filter.fromMs);
    if (filter.toMs !== undefined) add((p) => `start_ms < ${p}`, filter.toMs);
    if (filter.minDurationMs !== undefined) add((p) => `duration_ms >= ${p}`, filter.minDurationMs);
    if (after) {
      params.push(after.startMs, after.traceId);
      const [s, t] = [`$${params.length - 1}`, `$${params.length}`];
      where.push(`(start_ms < ${s} OR (start_ms = ${s} AND trace_id < ${t}))`);
    }
    params.push(limit);
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT ${TRACE_COLUMNS} FROM svc_traces ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY start_ms DESC, trace_id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toTraceRow);
  }

  async get(traceId: string): Promise<TraceRow | undefined> {
    const rows = await this.db.query<Record<string, unknown>>(`SELECT ${TRACE_COLUMNS}, tenant_id FROM svc_traces WHERE trace_id = $1`, [traceId]);
    return rows[0] ? toTraceRow(rows[0]) : undefined;
  }

  /** A run's spans in the order they started. */
  async spans(traceId: string): Promise<SpanRow[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT trace_id, span_id, parent_id, kind, name, start_ms, end_ms, status, input_tokens, output_tokens, attributes
       FROM svc_trace_spans WHERE trace_id = $1 ORDER BY start_ms, end_ms`,
      [traceId],
    );
    return rows.map((r) => ({
      trace_id: String(r.trace_id),
      span_id: String(r.span_id),
      parent_id: r.parent_id === null ? null : String(r.parent_id),
      kind: String(r.kind),
      name: String(r.name),
      start_ms: Number(r.start_ms),
      end_ms: Number(r.end_ms),
      status: String(r.status),
      input_tokens: r.input_tokens === null ? null : Number(r.input_tokens),
      output_tokens: r.output_tokens === null ? null : Number(r.output_tokens),
      attributes: JSON.parse(String(r.attributes)) as Record<string, unknown>,
    }));
  }

  /** Removes the traces of runs started before `cutoffMs`, spans first; returns how many runs. */
  async deleteBefore(cutoffMs: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      await tx.execute('DELETE FROM svc_trace_spans WHERE trace_id IN (SELECT trace_id FROM svc_traces WHERE start_ms < $1)', [cutoffMs]);
      return tx.execute('DELETE FROM svc_traces WHERE start_ms < $1', [cutoffMs]);
    });
  }
}

async function insertSpans(tx: SqlClient, spans: readonly SerializedSpan[]): Promise<void> {
  const params: SqlValue[] = [];
  const values = spans.map((s) => {
    const at = params.length;
    params.push(
      s.trace_id,
      s.span_id,
      s.parent_id,
      s.kind,
      s.name,
      s.start_ms,
      s.end_ms,
      s.status,
      s.input_tokens,
      s.output_tokens,
      s.cached_input_tokens,
      s.cache_write_input_tokens,
      s.attributes,
    );
    return `(${Array.from({ length: SPAN_COLUMNS }, (_, i) => `$${at + i + 1}`).join(', ')})`;
  });
  // A batch written again after a failed commit must not fail on the spans that made it.
  await tx.execute(
    `INSERT INTO svc_trace_spans (trace_id, span_id, parent_id, kind, name, start_ms, end_ms, status, input_tokens, output_tokens,
       cached_input_tokens, cache_write_input_tokens, attributes)
     VALUES ${values.join(', ')} ON CONFLICT (trace_id, span_id) DO NOTHING`,
    params,
  );
}

/**
 * A continued run (paused, then decided on) ends twice: its summary adds the second part. The
 * row takes its session's tenant, so a trace is confined exactly as its run is.
 */
async function upsertTrace(tx: SqlClient, t: TraceRow): Promise<void> {
  await tx.execute(
    `INSERT INTO svc_traces (${TRACE_COLUMNS}, tenant_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
       (SELECT s.tenant_id FROM svc_sessions s WHERE s.session_id = $2))
     ON CONFLICT (trace_id) DO UPDATE SET status = excluded.status, error = excluded.error, end_ms = excluded.end_ms,
       duration_ms = svc_traces.duration_ms + excluded.duration_ms,
       input_tokens = svc_traces.input_tokens + excluded.input_tokens,
       output_tokens = svc_traces.output_tokens + excluded.output_tokens`,
    [t.trace_id, t.session_id, t.component_type, t.component_id, t.user_id, t.status, t.error, t.start_ms, t.end_ms, t.duration_ms, t.input_tokens, t.output_tokens],
  );
}

function toTraceRow(r: Record<string, unknown>): TraceRow {
  return {
    trace_id: String(r.trace_id),
    session_id: String(r.session_id),
    component_type: String(r.component_type) as TraceRow['component_type'],
    component_id: String(r.component_id),
    user_id: r.user_id === null ? null : String(r.user_id),
    ...(r.tenant_id !== undefined ? { tenant_id: r.tenant_id === null ? null : String(r.tenant_id) } : {}),
    status: String(r.status),
    error: r.error === null ? null : String(r.error),
    start_ms: Number(r.start_ms),
    end_ms: Number(r.end_ms),
    duration_ms: Number(r.duration_ms),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
  };
}
