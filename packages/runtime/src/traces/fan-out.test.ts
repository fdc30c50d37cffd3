/**
 * @module traces/fan-out.test
 * One tracer, several sinks: every span and summary reaches each sink, a sink's fault is logged
 * and stays its own, flush and close reach all; and a run recorded by the real tracer arrives
 * at an OTLP receiver next to the database writer's copy, root last, with its session; the
 * Traces service given an export sink feeds it and the database alike and closes both.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sqliteTestDatabase } from '../../test/support/databases.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/support/otlp-receiver.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { FanOut, type ClosableSink } from './fan-out.js';
import { otlpSinkFromEnv } from './otlp-export.js';
import type { PendingSpan, TraceRow } from './rows.js';
import { SpanTracer } from './tracer.js';
import { Traces } from './traces.js';

class Recording implements ClosableSink {
  spans: PendingSpan[] = [];
  traces: TraceRow[] = [];
  flushes = 0;
  closes = 0;
  addSpan(span: PendingSpan): void {
    this.spans.push(span);
  }
  addTrace(trace: TraceRow): void {
    this.traces.push(trace);
  }
  flushSoon(): void {}
  async flush(): Promise<void> {
    this.flushes++;
  }
  async close(): Promise<void> {
    this.closes++;
  }
}

class Broken extends Recording {
  override addSpan(): void {
    throw new Error('disk full');
  }
  override async flush(): Promise<void> {
    throw new Error('still full');
  }
}

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}

const INFO = { runId: randomUUID(), sessionId: 'session-1', componentType: 'agent', componentId: 'helper', userId: null } as const;

describe('FanOut', () => {
  let receiver: OtlpReceiver | undefined;

  afterEach(async () => {
    vi.unstubAllEnvs();
    await receiver?.close();
    receiver = undefined;
  });

  it('hands every span and summary to each sink; a failing sink is logged and the others still get it', async () => {
    const log = recordingLog();
    const broken = new Broken();
    const first = new Recording();
    const second = new Recording();
    const fan = new FanOut([first, broken, second], log);
    const run = new SpanTracer(fan).startRun(INFO);
    run.child('tool', 'search').end();
    run.finish('COMPLETED', null);

    for (const sink of [first, second]) {
      expect(sink.spans.map((s) => s.kind)).toEqual(['tool', 'run']);
      expect(sink.traces.map((t) => t.status)).toEqual(['RUNNING', 'COMPLETED']);
    }
    expect(broken.traces).toHaveLength(2);
    expect(log.warnings).toEqual(['a trace sink failed in addSpan: disk full', 'a trace sink failed in addSpan: disk full']);

    await fan.flush();
    await fan.close();
    expect([first.flushes, broken.flushes, second.flushes]).toEqual([1, 0, 1]);
    expect([first.closes, broken.closes, second.closes]).toEqual([1, 1, 1]);
    expect(log.warnings.at(-1)).toBe('a trace sink failed in flush: still full');
  });

  it('exports a run the tracer recorded over OTLP, next to the other sink', async () => {
    receiver = await startOtlpReceiver();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '600000');
    const log = recordingLog();
    const otlp = otlpSinkFromEnv(process.env, log);
    if (!otlp) throw new Error('export should be on');
    const database = new Recording();
    const fan = new FanOut([database, otlp], log);

    const run = new SpanTracer(fan).startRun(INFO, { input: 'hello' });
    run.child('model', 'anthropic/claude-sonnet-4-5', { provider: 'anthropic', model: 'claude-sonnet-4-5' }).end('ok', { input_tokens: 100, output_tokens: 20, finish_reason: 'tool_calls' });
    run.child('tool', 'lookup', { tool_call_id: 'toolu_1', arguments: { q: 'x' } }).end('ok', { result: { found: true } });
    run.child('model', 'anthropic/claude-sonnet-4-5', { provider: 'anthropic', model: 'claude-sonnet-4-5' }).end('ok', { input_tokens: 130, output_tokens: 9, finish_reason: 'stop' });
    run.finish('COMPLETED', null);
    await fan.flush();

    expect(database.spans).toHaveLength(4);
    const spans = receiver.accepted();
    expect(spans.map((s) => s.name)).toEqual(['chat claude-sonnet-4-5', 'execute_tool lookup', 'chat claude-sonnet-4-5', 'invoke_agent helper']);
    const root = spans[3]!;
    expect(root.parentSpanId).toBe('');
    expect(root.traceId).toBe(INFO.runId.replaceAll('-', ''));
    for (const child of spans.slice(0, 3)) expect(child.parentSpanId).toBe(root.spanId);
    expect(spans.map((s) => [s.attributes['gen_ai.usage.input_tokens'], s.attributes['gen_ai.usage.output_tokens']])).toEqual([
      [100, 20],
      [undefined, undefined],
      [130, 9],
      [undefined, undefined],
    ]);
    expect(root.attributes).toMatchObject({ 'gen_ai.conversation.id': 'session-1', 'svc.usage.input_tokens': 230, 'svc.usage.output_tokens': 29, 'svc.input': 'hello' });
    expect(spans[1]!.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'toolu_1', 'gen_ai.tool.call.arguments': '{"q":"x"}', 'gen_ai.tool.call.result': '{"found":true}' });
    for (const s of spans) expect(s.endTimeUnixNano).toBeGreaterThanOrEqual(s.startTimeUnixNano);
    expect(log.warnings).toEqual([]);
    await fan.close();
  });
});

describe('Traces with an export sink', () => {
  it('records each run to the database and the export sink, and closes both', async () => {
    const database = await sqliteTestDatabase.create();
    const db = database.open();
    try {
      await db.migrate();
      const exported = new Recording();
      const traces = new Traces({ db, log: silentLogger, retentionDays: 30, exportSink: exported });
      const runId = randomUUID();
      const run = traces.tracer.startRun({ ...INFO, runId });
      run.child('model', 'openai/gpt-4o-mini').end('ok', { input_tokens: 3, output_tokens: 1 });
      run.finish('COMPLETED', null);
      await traces.close();
      expect(exported.spans.map((s) => s.kind)).toEqual(['model', 'run']);
      expect(exported.traces.map((t) => [t.trace_id, t.status])).toEqual([
        [runId, 'RUNNING'],
        [runId, 'COMPLETED'],
      ]);
      expect(exported.closes).toBe(1);
      const stored = await traces.tree(runId, undefined);
      expect(stored.trace.input_tokens).toBe(3);
      expect(stored.spans[0]?.children.map((c) => c.kind)).toEqual(['model']);
    } finally {
      await db.close();
      await database.cleanup();
    }
  });
});
