import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger, type Logger } from '../util/logger.js';
import type { SerializedSpan, TraceRow } from './rows.js';
import { RUN_END_WRITE_MS, TraceWriter, withoutEndedStarts } from './trace-writer.js';
import { SpanTracer } from './tracer.js';

type Written = { spans: SerializedSpan[]; traces: TraceRow[] };

function fakeStore(fail = false) {
  const writes: Written[] = [];
  return {
    writes,
    write: async (spans: readonly SerializedSpan[], traces: readonly TraceRow[]) => {
      if (fail) throw new Error('database is away');
      writes.push({ spans: [...spans], traces: [...traces] });
    },
  };
}

const row = (id: string, status: string) => ({ trace_id: id, status }) as TraceRow;

const info = { runId: 'r1', sessionId: 's1', componentType: 'agent' as const, componentId: 'a1', userId: 'u1' };

describe('the trace writer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes ended spans at most an interval later, in one batch', async () => {
    const store = fakeStore();
    const writer = new TraceWriter({ store, log: silentLogger, intervalMs: 1000 });
    const run = new SpanTracer(writer).startRun(info);
    run.child('tool', 'a').end();
    await vi.advanceTimersByTimeAsync(500);
    run.child('tool', 'b').end();
    expect(store.writes).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(500);
    expect(store.writes).toHaveLength(1);
    expect(store.writes[0]!.spans.map((s) => s.kind)).toEqual(['tool', 'tool']);
    // Nothing buffered: no timer, no empty writes.
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.writes).toHaveLength(1);
  });

  it('writes soon after a run ends, runs ending together in one write, with the summary and the tokens of its model calls', async () => {
    const store = fakeStore();
    const writer = new TraceWriter({ store, log: silentLogger, intervalMs: 60_000 });
    const run = new SpanTracer(writer).startRun(info);
    run.child('model', 'openai/m').end('ok', { input_tokens: 12, output_tokens: 5 });
    run.child('model', 'openai/m').end('ok', { input_tokens: 20, output_tokens: 7 });
    run.finish('COMPLETED', null);
    await vi.advanceTimersByTimeAsync(RUN_END_WRITE_MS / 2);
    expect(store.writes).toHaveLength(0);
    const other = new SpanTracer(writer).startRun({ ...info, runId: 'r2' });
    other.finish('COMPLETED', null);
    await vi.advanceTimersByTimeAsync(RUN_END_WRITE_MS / 2);
    // Both runs ended within RUN_END_WRITE_MS of the first: one write. Each started in this batch
    // too, so its RUNNING summary is not written only to be overwritten: the final one alone.
    expect(store.writes).toHaveLength(1);
    expect(store.writes[0]!.traces.map((t) => [t.trace_id, t.status])).toEqual([
      ['r1', 'COMPLETED'],
      ['r2', 'COMPLETED'],
    ]);
    const [write] = store.writes;
    expect(write!.traces[0]).toEqual(expect.objectContaining({ trace_id: 'r1', status: 'COMPLETED', input_tokens: 32, output_tokens: 12, user_id: 'u1' }));
    const root = write!.spans.find((s) => s.kind === 'run')!;
    expect(root.input_tokens).toBe(32);
    expect(JSON.parse(root.attributes)).toEqual({ run_status: 'COMPLETED' });
  });

  it('writes a run RUNNING while it lasts past a write, so a runtime that dies still lists it', async () => {
    const store = fakeStore();
    const writer = new TraceWriter({ store, log: silentLogger, intervalMs: 1000 });
    const run = new SpanTracer(writer).startRun(info);
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.writes.map((w) => w.traces.map((t) => t.status))).toEqual([['RUNNING']]);
    expect(store.writes[0]!.traces[0]).toEqual(expect.objectContaining({ trace_id: 'r1', duration_ms: 0, input_tokens: 0, user_id: 'u1' }));
    run.finish('COMPLETED', null);
    await vi.advanceTimersByTimeAsync(RUN_END_WRITE_MS);
    expect(store.writes.map((w) => w.traces.map((t) => t.status))).toEqual([['RUNNING'], ['COMPLETED']]);
  });

  it("keeps a model call's prompt-cache counts as columns, and nothing where none was reported", async () => {
    const store = fakeStore();
    const writer = new TraceWriter({ store, log: silentLogger, intervalMs: 1000 });
    const run = new SpanTracer(writer).startRun(info);
    run.child('model', 'anthropic/m').end('ok', { input_tokens: 100, output_tokens: 5, cached_tokens: 60, cache_write_tokens: 30 });
    run.child('model', 'openai/m').end('ok', { input_tokens: 10, output_tokens: 2, cached_tokens: null });
    run.child('tool', 't').end('ok', { cached_tokens: 'not a count' });
    await writer.flush();
    expect(store.writes[0]!.spans.map((s) => [s.name, s.cached_input_tokens, s.cache_write_input_tokens])).toEqual([
      ['anthropic/m', 60, 30],
      ['openai/m', null, null],
      ['t', null, null],
    ]);
  });

  it('drops a RUNNING summary only for an end that follows it', () => {
    // A continued run: its pause ends part one, its second start must stay until part two ends.
    expect(withoutEndedStarts([row('a', 'RUNNING'), row('a', 'PAUSED'), row('a', 'RUNNING')]).map((t) => t.status)).toEqual(['PAUSED', 'RUNNING']);
    expect(withoutEndedStarts([row('a', 'PAUSED'), row('a', 'RUNNING'), row('b', 'RUNNING'), row('a', 'COMPLETED')]).map((t) => `${t.trace_id}:${t.status}`)).toEqual([
      'a:PAUSED',
      'b:RUNNING',
      'a:COMPLETED',
    ]);
  });

  it('writes early when a batch fills, bounds attributes, and ignores a second end', async () => {
    const store = fakeStore();
    // Four rows fill it: the run's RUNNING summary and three spans.
    const writer = new TraceWriter({ store, log: silentLogger, intervalMs: 60_000, batchSize: 4, fieldLimitBytes: 10 });
    const run = new SpanTracer(writer).startRun(info);
    const span = run.child('tool', 'big');
    span.end('ok', { result: 'z'.repeat(50) });
    span.end('error');
    run.child('tool', 'b').end();
    expect(store.writes).toHaveLength(0);
    run.child('tool', 'c').end();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.writes[0]!.spans).toHaveLength(3);
    expect(JSON.parse(store.writes[0]!.spans[0]!.attributes)).toEqual({ result: 'z'.repeat(10), truncated: { result: 50 } });
  });

  it('logs and drops a batch the database refuses, and goes on writing', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (m: string) => warnings.push(m) };
    const store = fakeStore(true);
    const writer = new TraceWriter({ store, log, intervalMs: 100 });
    new SpanTracer(writer).startRun(info).child('tool', 'a').end();
    await vi.advanceTimersByTimeAsync(100);
    expect(warnings).toEqual(['could not write 1 span(s) of 1 run(s): database is away']);
    await writer.close();
  });
});
