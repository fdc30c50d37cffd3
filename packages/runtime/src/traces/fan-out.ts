/**
 * @module traces/fan-out
 * One tracer, several destinations: each finished span goes to every sink (the database
 * writer, the OTLP exporter). A sink that throws is logged and skipped, so one destination's
 * fault neither reaches the run that ended the span nor keeps the span from the others.
 */
import type { Logger } from '../util/logger.js';
import type { PendingSpan, SpanSink, TraceRow } from './rows.js';

/** A sink that can be drained and stopped (TraceWriter, OtlpSink). */
export interface ClosableSink extends SpanSink {
  /** Sends what is buffered; resolves once it is sent (or has failed and been logged). */
  flush(): Promise<void>;
  /** Sends what is buffered and stops. */
  close(): Promise<void>;
}

export class FanOut implements ClosableSink {
  constructor(
    private readonly sinks: readonly ClosableSink[],
    private readonly log: Logger,
  ) {}

  addSpan(span: PendingSpan): void {
    this.each('addSpan', (sink) => sink.addSpan(span));
  }

  addTrace(trace: TraceRow): void {
    this.each('addTrace', (sink) => sink.addTrace(trace));
  }

  flushSoon(): void {
    this.each('flushSoon', (sink) => sink.flushSoon());
  }

  async flush(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => this.settle('flush', () => sink.flush())));
  }

  async close(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => this.settle('close', () => sink.close())));
  }

  private each(what: string, call: (sink: ClosableSink) => void): void {
    for (const sink of this.sinks) {
      try {
        call(sink);
      } catch (error) {
        this.log.warn(`a trace sink failed in ${what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private async settle(what: string, call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.log.warn(`a trace sink failed in ${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
