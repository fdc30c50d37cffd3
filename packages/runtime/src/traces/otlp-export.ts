/**
 * @module traces/otlp-export
 * Whether this process exports spans over OTLP, and the sink that does. The SDK (~150 ms of
 * module loading) is imported only when export is on, and then off the start's path: spans
 * ended before it has loaded wait here, at most a queue's worth, and go to it in order.
 */
import { readOtelSettings, type OtelSettings } from '../settings/otel.js';
import type { Environment } from '../settings/environment.js';
import { consoleLogger, type Logger } from '../util/logger.js';
import type { ClosableSink } from './fan-out.js';
import type { PendingSpan, TraceRow } from './rows.js';

type Call = { span: PendingSpan } | { trace: TraceRow };

/** A sink whose implementation is still loading: calls queue until it is there. */
export class LoadingSink implements ClosableSink {
  private sink: ClosableSink | undefined;
  private queue: Call[] = [];
  private readonly loaded: Promise<ClosableSink | undefined>;

  constructor(
    load: () => Promise<ClosableSink>,
    private readonly maxQueued: number,
    log: Logger,
  ) {
    this.loaded = load().then(
      (sink) => {
        this.sink = sink;
        for (const call of this.queue) if ('span' in call) sink.addSpan(call.span);
        else sink.addTrace(call.trace);
        this.queue = [];
        return sink;
      },
      (error: unknown) => {
        log.error('could not load the OpenTelemetry SDK; spans are not exported', error);
        this.queue = [];
        return undefined;
      },
    );
  }

  addSpan(span: PendingSpan): void {
    if (this.sink) this.sink.addSpan(span);
    else if (this.queue.length < this.maxQueued) this.queue.push({ span });
  }

  addTrace(trace: TraceRow): void {
    if (this.sink) this.sink.addTrace(trace);
    else if (this.queue.length < this.maxQueued) this.queue.push({ trace });
  }

  flushSoon(): void {
    this.sink?.flushSoon();
  }

  async flush(): Promise<void> {
    await (await this.loaded)?.flush();
  }

  async close(): Promise<void> {
    await (await this.loaded)?.close();
  }
}

/** A sink exporting over OTLP as `settings` say. */
export function otlpSink(settings: OtelSettings, log: Logger): ClosableSink {
  return new LoadingSink(async () => (await import('./otlp-sink.js')).createOtlpSink(settings, log), settings.batch.maxQueueSize, log);
}

/**
 * The OTLP sink when `env` turns export on (an OTLP endpoint set, not disabled), undefined
 * otherwise; to pass next to the database writer in a FanOut. The SDK reads its own variables
 * (endpoint, headers, timeout, service name, resource attributes) from `process.env`, so `env`
 * is the process environment everywhere but in tests of the off switches.
 */
export function otlpSinkFromEnv(env: Readonly<Environment> = process.env, log: Logger = consoleLogger): ClosableSink | undefined {
  const settings = readOtelSettings(env);
  return settings.enabled ? otlpSink(settings, log) : undefined;
}
