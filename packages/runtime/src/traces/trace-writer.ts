/**
 * @module traces/trace-writer
 * Spans reach the database off the run's path: ended spans wait in memory and are written in
 * one transaction at most `intervalMs` later (a crash loses at most that much), shortly after
 * a run ends, and early when a burst fills a batch. Attributes are bounded, redacted and
 * serialised as a span is handed over. Writes never overlap; a failed write is logged and its
 * batch dropped (traces are diagnostics: they must not grow memory without end while the
 * database is away).
 */
import type { Logger } from '../util/logger.js';
import { serializeAttributes } from './payload.js';
import type { PendingSpan, SerializedSpan, SpanSink, TraceRow } from './rows.js';
import type { TraceStore } from './trace-store.js';

export interface TraceWriterOptions {
  store: Pick<TraceStore, 'write'>;
  log: Logger;
  /** The longest an ended span waits before it is written (default 1 s). */
  intervalMs?: number;
  /** Rows that trigger a write before the interval is up (default 500). */
  batchSize?: number;
  /** Per-field bound on attributes, in bytes (default 16 KiB). */
  fieldLimitBytes?: number;
}

/**
 * How long a run's end waits for other runs' ends before its trace is written. Each write is a
 * transaction whose pages (two tables, six indexes) SQLite writes whole: at 20 ms, on a runtime
 * serving 500 runs a second, that was a third of what tracing cost. Reads through `Traces` flush
 * first, so this process's API never shows a trace later than this.
 */
export const RUN_END_WRITE_MS = 200;

export class TraceWriter implements SpanSink {
  private spans: SerializedSpan[] = [];
  private traces: TraceRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private closed = false;

  constructor(private readonly options: TraceWriterOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
  }

  /**
   * Serialised now, not at write time: a batch waits up to RUN_END_WRITE_MS, and the objects a
   * span points at (the conversation sent to the model) kept alive that long outlive V8's young
   * generation; the JSON text is one flat string the collector never has to walk.
   */
  addSpan(span: PendingSpan): void {
    this.spans.push({
      ...span,
      attributes: this.serialize(span),
      cached_input_tokens: tokenCount(span.attributes.cached_tokens),
      cache_write_input_tokens: tokenCount(span.attributes.cache_write_tokens),
    });
    this.schedule();
  }

  private serialize(span: PendingSpan): string {
    try {
      return serializeAttributes(span.attributes, this.options.fieldLimitBytes);
    } catch (error) {
      // A value JSON cannot hold (a BigInt, a cycle) costs the span its attributes, never the run.
      return JSON.stringify({ attributes_error: error instanceof Error ? error.message : String(error) });
    }
  }

  addTrace(trace: TraceRow): void {
    this.traces.push(trace);
    this.schedule();
  }

  /** A run ended: write within RUN_END_WRITE_MS, the runs ending in that window in one transaction. */
  flushSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.flush();
    }, RUN_END_WRITE_MS);
  }

  /** Writes everything buffered so far; resolves once it (and any earlier write) is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.spans.length === 0 && this.traces.length === 0) return this.writing;
    const spans = this.spans;
    const traces = this.traces;
    this.spans = [];
    this.traces = [];
    this.writing = this.writing.then(() => this.write(spans, withoutEndedStarts(traces)));
    return this.writing;
  }

  /** Writes what is buffered and stops taking timers (spans ended later are written by `flush`). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private schedule(): void {
    if (this.spans.length + this.traces.length >= this.batchSize) {
      void this.flush();
      return;
    }
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  private async write(spans: SerializedSpan[], traces: TraceRow[]): Promise<void> {
    try {
      await this.options.store.write(spans, traces);
    } catch (error) {
      this.options.log.warn(`could not write ${spans.length} span(s) of ${traces.length} run(s): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/**
 * A run that started and ended within one batch needs only its final summary: its RUNNING row
 * would be written only to be overwritten in the same transaction. A RUNNING row is dropped only
 * when an end of the same run follows it (a continued run's second start after its pause stays).
 */
export function withoutEndedStarts(traces: TraceRow[]): TraceRow[] {
  const endedLater = new Set<string>();
  const kept: TraceRow[] = [];
  for (let i = traces.length - 1; i >= 0; i--) {
    const t = traces[i]!;
    if (t.status !== 'RUNNING') endedLater.add(t.trace_id);
    else if (endedLater.has(t.trace_id)) continue;
    kept.push(t);
  }
  return kept.toReversed();
}
