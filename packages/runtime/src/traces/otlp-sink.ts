/**
 * @module traces/otlp-sink
 * Finished spans out over OTLP/HTTP (protobuf) through the official OpenTelemetry JS SDK: each
 * span becomes a ReadableSpan (traces/otlp-span.ts) handed to the SDK's BatchSpanProcessor,
 * whose OTLPTraceExporter does the batching, the retries (429, 502, 503, 504 with backoff,
 * Retry-After honoured) and the OTEL_EXPORTER_OTLP_* variables. Nothing here waits on the
 * network: a span only joins the processor's queue, which drops (and counts) spans past
 * OTEL_BSP_MAX_QUEUE_SIZE while the collector is away; failed exports are logged, never thrown.
 *
 * A run's root span is held until the same tick's summary row (traces/tracer.ts adds the span,
 * then the row) so it can carry the run's session as `gen_ai.conversation.id`; a root span
 * whose row never comes (ended without `finish`) is sent without it a microtask later.
 */
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { OtelSettings } from '../settings/otel.js';
import type { Logger } from '../util/logger.js';
import type { ClosableSink } from './fan-out.js';
import { toReadableSpan, type OtlpSpanContext } from './otlp-span.js';
import type { PendingSpan, TraceRow } from './rows.js';

/** `service.name` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES name the service. */
export const DEFAULT_SERVICE_NAME = 'svc-runtime';

/** The instrumentation scope every exported span is under. */
export const SCOPE_NAME = '@svc/runtime';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class OtlpSink implements ClosableSink {
  private readonly held = new Map<string, PendingSpan>();

  constructor(
    private readonly processor: SpanProcessor,
    private readonly context: OtlpSpanContext,
    private readonly log: Logger,
  ) {}

  addSpan(span: PendingSpan): void {
    if (span.kind === 'run' && span.parent_id === null) {
      this.release(span.trace_id);
      this.held.set(span.trace_id, span);
      queueMicrotask(() => this.release(span.trace_id));
      return;
    }
    this.send(span, undefined);
  }

  addTrace(trace: TraceRow): void {
    const root = this.held.get(trace.trace_id);
    if (!root) return;
    this.held.delete(trace.trace_id);
    this.send(root, trace);
  }

  /** Nothing: the processor sends on its schedule (OTEL_BSP_SCHEDULE_DELAY), a request per batch rather than per run. */
  flushSoon(): void {}

  async flush(): Promise<void> {
    this.releaseAll();
    try {
      await this.processor.forceFlush();
    } catch (error) {
      this.log.warn(`could not export spans over OTLP: ${message(error)}`);
    }
  }

  /** Sends what is queued (within OTEL_BSP_EXPORT_TIMEOUT) and stops the processor and exporter. */
  async close(): Promise<void> {
    this.releaseAll();
    try {
      await this.processor.shutdown();
    } catch (error) {
      this.log.warn(`could not export spans over OTLP: ${message(error)}`);
    }
  }

  private release(traceId: string): void {
    const root = this.held.get(traceId);
    if (!root) return;
    this.held.delete(traceId);
    this.send(root, undefined);
  }

  private releaseAll(): void {
    // A Map iterates safely while its entries are deleted.
    for (const traceId of this.held.keys()) this.release(traceId);
  }

  private send(span: PendingSpan, run: TraceRow | undefined): void {
    let readable: ReadableSpan;
    try {
      readable = toReadableSpan(span, run, this.context);
    } catch (error) {
      // A span the mapping cannot take is one lost span, not a failed run.
      this.log.warn(`could not export span ${span.span_id} over OTLP: ${message(error)}`);
      return;
    }
    this.processor.onEnd(readable);
  }
}

/**
 * Logs when exports start failing and when they recover, once each: the processor reports a
 * failed scheduled export only to the SDK's diagnostic logger, which is silent unless set up.
 */
class ReportingExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly log: Logger,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.exporter.export(spans, (result) => {
      if (result.error !== undefined || result.code !== 0) {
        if (!this.failing) this.log.warn(`could not export ${spans.length} span(s) over OTLP (later failures are not logged until one succeeds): ${message(result.error ?? 'failed')}`);
        this.failing = true;
      } else if (this.failing) {
        this.failing = false;
        this.log.info('OTLP span export works again');
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}

/** An OtlpSink with the SDK's processor and exporter, configured by `settings` and the OTEL_* variables. */
export function createOtlpSink(settings: OtelSettings, log: Logger): OtlpSink {
  // Later merges win: the default name, then what OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME say.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = new ReportingExporter(new OTLPTraceExporter(), log);
  const processor = new BatchSpanProcessor({ exporter, ...settings.batch });
  return new OtlpSink(processor, { resource, scope: { name: SCOPE_NAME }, attributeLimit: settings.attributeValueLimit }, log);
}
