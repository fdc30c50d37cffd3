/**
 * The trace tables on both stores: batched writes, filters and keyset paging, a continued run's
 * summary, retention, the span tree and the usage metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds, type TestDatabase } from '../../test/support/databases.js';
import type { Db } from '../storage/db.js';
import { silentLogger } from '../util/logger.js';
import type { SerializedSpan, TraceRow } from './rows.js';
import { Traces } from './traces.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10, 12);

function trace(id: string, startMs: number, fields: Partial<TraceRow> = {}): TraceRow {
  return {
    trace_id: id,
    session_id: 's1',
    component_type: 'agent',
    component_id: 'weather',
    user_id: 'u1',
    status: 'COMPLETED',
    error: null,
    start_ms: startMs,
    end_ms: startMs + 100,
    duration_ms: 100,
    input_tokens: 10,
    output_tokens: 4,
    ...fields,
  };
}

function span(traceId: string, id: string, parent: string | null, kind: string, startMs: number, fields: Partial<SerializedSpan> = {}): SerializedSpan {
  return {
    trace_id: traceId,
    span_id: id,
    parent_id: parent,
    kind,
    name: kind,
    start_ms: startMs,
    end_ms: startMs + 10,
    status: 'ok',
    input_tokens: null,
    output_tokens: null,
    cached_input_tokens: null,
    cache_write_input_tokens: null,
    attributes: '{}',
    ...fields,
  };
}

const ids = (page: { data: TraceRow[] }) => page.data.map((t) => t.trace_id);

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`trace store on ${kind.kind}`, () => {
    let database: TestDatabase;
    let db: Db;
    let traces: Traces;

    beforeAll(async () => {
      database = await kind.create();
      db = database.open();
      await db.migrate();
      traces = new Traces({ db, log: silentLogger, retentionDays: 30 });
      await traces.store.write(
        [
          span('r1', 'root', null, 'run', T0),
          span('r1', 'm1', 'root', 'model', T0 + 1, { name: 'openai/gpt-x', input_tokens: 6, output_tokens: 2 }),
          span('r1', 't1', 'root', 'tool', T0 + 2, { attributes: '{"name":"get_weather"}' }),
          span('r1', 'm2', 'root', 'model', T0 + 3, { name: 'openai/gpt-x', input_tokens: 4, output_tokens: 2, end_ms: T0 + 303 }),
          span('r2', 'm3', null, 'model', T0 + DAY, { name: 'ollama/llama3', status: 'error', input_tokens: 1, output_tokens: 0 }),
        ],
        [
          trace('r1', T0),
          trace('r2', T0 + DAY, { status: 'ERROR', error: 'boom', duration_ms: 900, input_tokens: 1, output_tokens: 0, user_id: 'u2', component_id: 'writer' }),
          trace('r3', T0 + 2 * DAY, { component_type: 'team', component_id: 'support', session_id: 's2', duration_ms: 5000 }),
          trace('r4', T0 + 2 * DAY, { component_type: 'workflow', component_id: 'flow', duration_ms: 50 }),
        ],
      );
    });
    afterAll(async () => {
      await traces?.close();
      await db?.close();
      await database?.cleanup();
    });

    it('lists runs newest first, by each filter', async () => {
      expect(ids(await traces.list({}, 10, undefined, undefined))).toEqual(['r4', 'r3', 'r2', 'r1']);
      expect(ids(await traces.list({ componentType: 'agent', componentId: 'weather' }, 10, undefined, undefined))).toEqual(['r1']);
      expect(ids(await traces.list({ componentType: 'team' }, 10, undefined, undefined))).toEqual(['r3']);
      expect(ids(await traces.list({ status: 'ERROR' }, 10, undefined, undefined))).toEqual(['r2']);
      expect(ids(await traces.list({ sessionId: 's2' }, 10, undefined, undefined))).toEqual(['r3']);
      expect(ids(await traces.list({ userId: 'u2' }, 10, undefined, undefined))).toEqual(['r2']);
      expect(ids(await traces.list({ minDurationMs: 900 }, 10, undefined, undefined))).toEqual(['r3', 'r2']);
      expect(ids(await traces.list({ fromMs: T0 + DAY, toMs: T0 + 2 * DAY }, 10, undefined, undefined))).toEqual(['r2']);
    });

    it('pages by cursor, and a viewer sees only its own runs', async () => {
      const first = await traces.list({}, 3, undefined, undefined);
      expect(ids(first)).toEqual(['r4', 'r3', 'r2']);
      const second = await traces.list({}, 3, first.next_cursor!, undefined);
      expect(second).toEqual({ data: [expect.objectContaining({ trace_id: 'r1' })], next_cursor: null });
      expect(ids(await traces.list({}, 10, undefined, 'u1'))).toEqual(['r4', 'r3', 'r1']);
      // Another user's runs asked for by a confined viewer: none (user_id = u2 AND user_id = u1).
      expect(ids(await traces.list({ userId: 'u2' }, 10, undefined, 'u1'))).toEqual([]);
      await expect(traces.list({}, 3, 'not-a-cursor', undefined)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('answers a run as its span tree, and another user’s run as missing', async () => {
      const { trace: summary, spans } = await traces.tree('r1', 'u1');
      expect(summary).toMatchObject({ trace_id: 'r1', input_tokens: 10, output_tokens: 4 });
      expect(spans).toHaveLength(1);
      expect(spans[0]!.children.map((c) => [c.kind, c.span_id])).toEqual([['model', 'm1'], ['tool', 't1'], ['model', 'm2']]);
      expect(spans[0]!.children[1]!.attributes).toEqual({ name: 'get_weather' });
      await expect(traces.tree('r1', 'u2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(traces.tree('nope', undefined)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('adds a continued run’s second part to its summary, and writes a span once', async () => {
      await traces.store.write([span('r1', 'root', null, 'run', T0)], [trace('r1', T0 + 1000, { status: 'ERROR', error: 'late', duration_ms: 50, input_tokens: 3, output_tokens: 1 })]);
      const { trace: summary } = await traces.tree('r1', undefined);
      expect(summary).toMatchObject({ start_ms: T0, status: 'ERROR', error: 'late', duration_ms: 150, input_tokens: 13, output_tokens: 5 });
      expect((await traces.store.spans('r1')).filter((s) => s.span_id === 'root')).toHaveLength(1);
    });

    it('counts usage per day, component and model', async () => {
      const m = await traces.metrics(T0 - DAY, T0 + 3 * DAY, undefined);
      expect(m.days.map((d) => [d.date, d.runs, d.errors])).toEqual([['2026-01-10', 1, 1], ['2026-01-11', 1, 1], ['2026-01-12', 2, 0]]);
      expect(m.days[2]).toMatchObject({ p50_latency_ms: 50, p95_latency_ms: 5000, input_tokens: 20, output_tokens: 8, cost: null });
      expect(m.components.map((c) => [c.date, c.component_type, c.component_id, c.runs])).toEqual([
        ['2026-01-10', 'agent', 'weather', 1],
        ['2026-01-11', 'agent', 'writer', 1],
        ['2026-01-12', 'team', 'support', 1],
        ['2026-01-12', 'workflow', 'flow', 1],
      ]);
      expect(m.models).toEqual([
        { date: '2026-01-10', provider: 'openai', model: 'gpt-x', runs: 2, errors: 0, input_tokens: 10, output_tokens: 4, p50_latency_ms: 10, p95_latency_ms: 300, cost: null },
        { date: '2026-01-11', provider: 'ollama', model: 'llama3', runs: 1, errors: 1, input_tokens: 1, output_tokens: 0, p50_latency_ms: 10, p95_latency_ms: 10, cost: null },
      ]);
      const mine = await traces.metrics(T0 - DAY, T0 + 3 * DAY, 'u2');
      expect(mine.days.map((d) => d.date)).toEqual(['2026-01-11']);
      expect(mine.models.map((x) => x.model)).toEqual(['llama3']);
      await expect(traces.metrics(T0, T0, undefined)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('puts a cost on usage from a price table: per model call, summed per run, null where a call has no price', async () => {
      // gpt-x: $2 in, $8 out per million tokens; llama3 is not in the table.
      const priced = new Traces({ db, log: silentLogger, retentionDays: 30, prices: { 'gpt-x': { input: 2, output: 8 } } });
      try {
        const m = await priced.metrics(T0 - DAY, T0 + 3 * DAY, undefined);
        // r1's two calls: 10 input and 4 output tokens = 10 * 2e-6 + 4 * 8e-6.
        const r1 = (10 * 2 + 4 * 8) / 1e6;
        expect(m.models.map((x) => [x.model, x.cost])).toEqual([['gpt-x', r1], ['llama3', null]]);
        expect(m.days.map((d) => [d.date, d.cost])).toEqual([
          ['2026-01-10', r1],
          ['2026-01-11', null],
          // Runs that made no model call cost nothing.
          ['2026-01-12', 0],
        ]);
        expect(m.components.find((c) => c.component_id === 'weather')?.cost).toBe(r1);
      } finally {
        await priced.close();
      }
    });

    it('prices prompt-cache reads and writes at their own rates', async () => {
      const t = T0 + 5 * DAY;
      // 1000 input tokens of which 600 read from the cache and 100 written to it, 50 output.
      await traces.store.write(
        [span('rc', 'mc', null, 'model', t, { name: 'anthropic/claude-x', input_tokens: 1000, output_tokens: 50, cached_input_tokens: 600, cache_write_input_tokens: 100 })],
        [trace('rc', t, { input_tokens: 1000, output_tokens: 50 })],
      );
      const prices = { 'claude-x': { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 } };
      const priced = new Traces({ db, log: silentLogger, retentionDays: 30, prices });
      try {
        const m = await priced.metrics(t, t + DAY, undefined);
        const usd = (300 * 3 + 600 * 0.3 + 100 * 3.75 + 50 * 15) / 1e6;
        expect(m.models.map((x) => [x.model, x.input_tokens, x.cost])).toEqual([['claude-x', 1000, usd]]);
        expect(m.days.map((d) => d.cost)).toEqual([usd]);
      } finally {
        await priced.close();
      }
    });

    it('removes the traces of runs started before the cutoff, spans included', async () => {
      expect(await traces.store.deleteBefore(T0 + DAY)).toBe(1);
      expect(await traces.store.spans('r1')).toEqual([]);
      // rc, the prompt-cache run, started days later.
      expect(ids(await traces.list({}, 10, undefined, undefined))).toEqual(['rc', 'r4', 'r3', 'r2']);
    });
  });
}
