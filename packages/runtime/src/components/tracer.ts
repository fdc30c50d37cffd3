/**
 * @module components/tracer
 * What a running component records its work through: a span it may open children under. The
 * runner hands each run its root span (`ExecutionContext.trace`); teams, workflows and agents
 * open model, tool, knowledge, member and step spans beneath it. Only the contract lives here,
 * so features record spans without knowing where they are stored (traces/ stores them).
 */

export type SpanKind = 'run' | 'model' | 'tool' | 'knowledge' | 'member' | 'step' | 'memory';
export type SpanStatus = 'ok' | 'error' | 'cancelled';

/** Attribute values are JSON; the store bounds and redacts them when the span ends. */
export type SpanAttributes = Record<string, unknown>;

export interface TraceSpan {
  /** Opens a child span, started now. */
  child(kind: SpanKind, name: string, attributes?: SpanAttributes): TraceSpan;
  /** Adds (or replaces) attributes before the span ends. */
  set(attributes: SpanAttributes): void;
  /** Ends the span (the first call wins; later ones are ignored). */
  end(status?: SpanStatus, attributes?: SpanAttributes): void;
}

/** What a run is, for the trace's summary (its filters and metrics). */
export interface TraceRunInfo {
  runId: string;
  sessionId: string;
  componentType: 'agent' | 'team' | 'workflow';
  componentId: string;
  userId: string | null;
}

/** Where runs get their root span. */
export interface Tracer {
  startRun(info: TraceRunInfo, attributes?: SpanAttributes): RunTrace;
}

export interface RunTrace extends TraceSpan {
  /** Ends the run's span with the run's final status (COMPLETED, ERROR, CANCELLED, PAUSED). */
  finish(runStatus: string, error: string | null): void;
}

const NOOP: RunTrace = {
  child: () => NOOP,
  set: () => {},
  end: () => {},
  finish: () => {},
};

/** A span that records nothing: runs without a tracer (components used directly, tests). */
export const noTrace: RunTrace = NOOP;
export const noTracer: Tracer = { startRun: () => NOOP };
