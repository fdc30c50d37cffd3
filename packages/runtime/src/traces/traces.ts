/**
 * @module traces/traces
 * What every run did, as a service: the tracer runs record into (batched to the database by
 * the TraceWriter, and to `exportSink` too when one is given: traces/otlp-export), retention,
 * and the reads the API answers (a filtered page of runs, one run's span tree, usage metrics),
 * each under the caller's confinement to its own user. Each read first writes what this
 * process still holds, so a run that has ended is readable here at once.
 */
import { badRequest, RuntimeError } from '../errors.js';
import type { Tracer } from '../components/tracer.js';
import type { ModelPrices } from '../settings/pricing.js';
import type { Db } from '../storage/db.js';
import type { Logger } from '../util/logger.js';
import { usageMetrics, type Metrics } from './metrics.js';
import { FanOut, type ClosableSink } from './fan-out.js';
import { TraceRetention } from './retention.js';
import type { SpanRow, TraceRow } from './rows.js';
import { TraceStore, type TraceCursor, type TraceFilter } from './trace-store.js';
import { TraceWriter } from './trace-writer.js';
import { SpanTracer } from './tracer.js';

export interface TracesOptions {
  db: Db;
  log: Logger;
  retentionDays: number;
  /** The price table GET /metrics puts a cost on usage with (MODEL_PRICES_JSON). */
  prices?: ModelPrices | undefined;
  /** The longest an ended span waits in memory (default 1 s). */
  flushIntervalMs?: number;
  /** Where spans go besides the database (`otlpSinkFromEnv()`: undefined when export is off). */
  exportSink?: ClosableSink | undefined;
}

export interface TracePage {
  data: TraceRow[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

export type SpanNode = Omit<SpanRow, 'trace_id' | 'parent_id'> & { parent_id: string | null; children: SpanNode[] };

/** The longest window GET /metrics reads at once. */
export const MAX_METRICS_DAYS = 92;

export class Traces {
  readonly store: TraceStore;
  readonly writer: TraceWriter;
  readonly tracer: Tracer;
  private readonly retention: TraceRetention;
  private readonly prices: ModelPrices | undefined;
  private readonly exportSink: ClosableSink | undefined;

  constructor(options: TracesOptions) {
    this.prices = options.prices;
    this.store = new TraceStore(options.db);
    this.writer = new TraceWriter({ store: this.store, log: options.log, ...(options.flushIntervalMs ? { intervalMs: options.flushIntervalMs } : {}) });
    this.exportSink = options.exportSink;
    this.tracer = new SpanTracer(this.exportSink ? new FanOut([this.writer, this.exportSink], options.log) : this.writer);
    this.retention = new TraceRetention({ store: this.store, log: options.log, retentionDays: options.retentionDays });
  }

  /** Starts the retention sweeps (after migrations). */
  start(): void {
    this.retention.start();
  }

  /** Writes what is buffered and stops the sweeps (after runs have ended, before the database closes). */
  async close(): Promise<void> {
    await this.retention.stop();
    await Promise.all([this.writer.close(), this.exportSink?.close()]);
  }

  /** A page of runs, newest first. `viewer` confines it to that user's runs, `tenant` to that tenant's. */
  async list(filter: TraceFilter, limit: number, cursor: string | undefined, viewer: string | undefined, tenant?: string): Promise<TracePage> {
    await this.writer.flush();
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    // A confined viewer asking for another user's runs finds none, as `user_id = a AND user_id = b` would.
    if (viewer !== undefined && filter.userId !== undefined && filter.userId !== viewer) return { data: [], next_cursor: null };
    const confined = { ...filter, ...(viewer !== undefined ? { userId: viewer } : {}), ...(tenant !== undefined ? { tenantId: tenant } : {}) };
    const rows = await this.store.list(confined, limit + 1, after);
    const data = rows.slice(0, limit);
    const last = data.at(-1);
    return { data, next_cursor: rows.length > limit && last ? encodeCursor({ startMs: last.start_ms, traceId: last.trace_id }) : null };
  }

  /** A run's summary and span tree; another user's run is missing to a confined viewer. */
  async tree(runId: string, viewer: string | undefined, tenant?: string): Promise<{ trace: TraceRow; spans: SpanNode[] }> {
    await this.writer.flush();
    const trace = await this.store.get(runId);
    const hidden = (viewer !== undefined && trace?.user_id !== viewer) || (tenant !== undefined && trace?.tenant_id !== tenant);
    if (!trace || hidden) throw new RuntimeError('NOT_FOUND', `Trace of run ${runId} not found`);
    return { trace, spans: buildTree(await this.store.spans(runId)) };
  }

  async metrics(fromMs: number, toMs: number, viewer: string | undefined, tenant?: string): Promise<Metrics> {
    if (toMs <= fromMs) throw badRequest('`to` must be after `from`');
    if (toMs - fromMs > MAX_METRICS_DAYS * 86_400_000) throw badRequest(`The window is at most ${MAX_METRICS_DAYS} days`);
    await this.writer.flush();
    return usageMetrics(this.store.db, fromMs, toMs, viewer, this.prices, tenant);
  }
}

/** Spans as a forest: roots (a run, or each part of a continued run) with their children in start order. */
export function buildTree(spans: readonly SpanRow[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>();
  for (const { trace_id: _, ...s } of spans) nodes.set(s.span_id, { ...s, children: [] });
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parent_id === null ? undefined : nodes.get(node.parent_id);
    // A span whose parent was lost (a crash before the parent ended) is shown as a root.
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

function encodeCursor(cursor: TraceCursor): string {
  return Buffer.from(JSON.stringify([cursor.startMs, cursor.traceId])).toString('base64url');
}

function decodeCursor(text: string): TraceCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') {
      return { startMs: value[0] as number, traceId: value[1] };
    }
  } catch {
    // Not JSON: reported below like any other bad cursor.
  }
  throw badRequest('`cursor` is not a cursor this API returned');
}
