/**
 * @module traces/trace-writer
 * Spans reach the database off the run's path: ended spans wait in memory and are written in
 * one transaction at most `intervalMs` later (a crash loses at most that much), as soon as a
 * run ends, and early when a burst fills a batch. Attributes are bounded and redacted here, at
 * write time, so the run pays only for pushing a row. Writes never overlap; a failed write is
 * logged and its batch dropped (traces are diagnostics: they must not grow memory without end
 * while the database is away).
 */
import type { Logger } from '../util/logger.js';
import { boundAttributes } from './payload.js';
import type { PendingSpan, SpanSink, TraceRow } from './rows.js';
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

/** How long a run's end waits for other runs' ends before its trace is written. */
export const RUN_END_WRITE_MS = 20;

export class TraceWriter implements SpanSink {
  private spans: PendingSpan[] = [];
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

  addSpan(span: PendingSpan): void {
    this.spans.push(span);
    this.schedule();
  }

  addTrace(trace: TraceRow): void {
    this.traces.push(trace);
    this.schedule();
  }

  /**
   * A run ended: write within RUN_END_WRITE_MS, so its trace is readable at once while the runs
   * ending in that window share one transaction (under load, a transaction per run end was the
   * most of what tracing cost).
   */
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
    this.writing = this.writing.then(() => this.write(spans, traces));
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

  private async write(spans: PendingSpan[], traces: TraceRow[]): Promise<void> {
    try {
      const limit = this.options.fieldLimitBytes;
      const rows = spans.map((s) => ({ ...s, attributes: JSON.stringify(boundAttributes(s.attributes, limit)) }));
      await this.options.store.write(rows, traces);
    } catch (error) {
      this.options.log.warn(`could not write ${spans.length} span(s) of ${traces.length} run(s): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
