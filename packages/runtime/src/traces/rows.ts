/**
 * @module traces/rows
 * The trace tables' rows as the store writes and reads them (storage/migrations.ts, step 46).
 */

/** One run's summary: what GET /traces filters and lists, and what the metrics count. */
export interface TraceRow {
  trace_id: string;
  session_id: string;
  component_type: 'agent' | 'team' | 'workflow';
  component_id: string;
  user_id: string | null;
  /** Its session's tenant (read back; written from the session, never by the writer). */
  tenant_id?: string | null;
  /** The run's status: COMPLETED, ERROR, CANCELLED or PAUSED. */
  status: string;
  error: string | null;
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  input_tokens: number;
  output_tokens: number;
}

/** One span as it is written: attributes still raw (the writer bounds and serialises them). */
export interface PendingSpan {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  kind: string;
  name: string;
  start_ms: number;
  end_ms: number;
  status: string;
  input_tokens: number | null;
  output_tokens: number | null;
  attributes: Record<string, unknown>;
}

/** A stored span, attributes parsed. */
export type SpanRow = PendingSpan;

/** Where finished spans and run summaries go (the batch writer). */
export interface SpanSink {
  addSpan(span: PendingSpan): void;
  addTrace(trace: TraceRow): void;
  /** A run ended: write what is buffered now rather than at the next tick. */
  flushSoon(): void;
}

/**
 * A span ready for its INSERT: attributes bounded, redacted and serialised, and a model call's
 * prompt-cache counts (attributes `cached_tokens`, `cache_write_tokens`) as columns of their own,
 * so the metrics can price cached input at its own rate without reading attributes.
 */
export type SerializedSpan = Omit<PendingSpan, 'attributes'> & {
  attributes: string;
  cached_input_tokens: number | null;
  cache_write_input_tokens: number | null;
};
