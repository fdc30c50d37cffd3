/**
 * @module traces/otlp-sink.test
 * OTLP export end to end: a synthetic run's spans go through the sink, the SDK's processor and
 * exporter, over loopback HTTP to a receiver that decodes the protobuf, and every span arrives
 * with its parent, GenAI name and attributes, token counts, times and status; the headers
 * variable is sent; a collector answering 503 is retried and, failing, never throws into the
 * caller; and nothing is built when export is off.
 */
import { randomUUID } from 'node:crypto';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOtlpReceiver, type DecodedSpan, type OtlpReceiver } from '../../test/support/otlp-receiver.js';
import type { Logger } from '../util/logger.js';
import * as gen from './genai.js';
import { otlpSinkFromEnv } from './otlp-export.js';
import { spanIdOf, traceIdOf } from './otlp-span.js';
import type { PendingSpan, TraceRow } from './rows.js';

const T = 1_767_225_600_123; // 2026-01-01T00:00:00.123Z
const nanos = (ms: number): bigint => BigInt(ms) * 1_000_000n;

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}

/** A run as the tracer hands it over: children as they end, then the run span and its summary row. */
function syntheticRun(runId = randomUUID()) {
  const span = (kind: string, name: string, start: number, end: number, extra: Partial<PendingSpan>): PendingSpan => ({
    trace_id: runId,
    span_id: randomUUID(),
    parent_id: null,
    kind,
    name,
    start_ms: T + start,
    end_ms: T + end,
    status: 'ok',
    input_tokens: null,
    output_tokens: null,
    attributes: {},
    ...extra,
  });
  const run = span('run', 'agent:weather-bot', 0, 2000, { input_tokens: 42, output_tokens: 12, attributes: { input: 'Weather in Paris?', run_status: 'COMPLETED' } });
  const under = { parent_id: run.span_id };
  const model1 = span('model', 'openai/gpt-4o-mini', 10, 410, {
    ...under,
    input_tokens: 12,
    output_tokens: 7,
    attributes: {
      provider: 'openai',
      model: 'gpt-4o-mini',
      messages_sent: [{ role: 'user', content: 'Weather in Paris?' }],
      input_tokens: 12,
      output_tokens: 7,
      cached_tokens: 4,
      total_tokens: 19,
      finish_reason: 'tool_calls',
      latency_ms: 400,
      ttft_ms: 250,
    },
  });
  const tool = span('tool', 'get_weather', 420, 900, {
    ...under,
    attributes: { tool_call_id: 'call_1', arguments: { city: 'Paris', api_key: 'sk-live-123456' }, result: 'sunny, 21 C' },
  });
  const failed = span('tool', 'get_alerts', 420, 600, { ...under, status: 'error', attributes: { tool_call_id: 'call_2', arguments: {}, error: 'alerts service down' } });
  const model2 = span('model', 'openai/gpt-4o-mini', 910, 1990, {
    ...under,
    input_tokens: 30,
    output_tokens: 5,
    attributes: { provider: 'openai', model: 'gpt-4o-mini', input_tokens: 30, output_tokens: 5, finish_reason: 'stop', auth: 'Bearer abcdef123456' },
  });
  const row: TraceRow = {
    trace_id: runId,
    session_id: 'session-7',
    component_type: 'agent',
    component_id: 'weather-bot',
    user_id: 'u1',
    status: 'COMPLETED',
    error: null,
    start_ms: T,
    end_ms: T + 2000,
    duration_ms: 2000,
    input_tokens: 42,
    output_tokens: 12,
  };
  return { runId, run, model1, tool, failed, model2, row, children: [model1, failed, tool, model2] };
}

describe('OTLP export', () => {
  let receiver: OtlpReceiver;

  beforeEach(() => {
    // Only flush sends: one request per flush, whatever the machine's speed.
    vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '600000');
  });

  afterEach(async () => {
    vi.unstubAllEnvs();
    await receiver?.close();
  });

  async function exportingTo(statuses: number[] = [], env: Record<string, string> = {}) {
    receiver = await startOtlpReceiver(statuses);
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    const log = recordingLog();
    const sink = otlpSinkFromEnv(process.env, log);
    if (!sink) throw new Error('export should be on');
    return { sink, log };
  }

  it('sends every span of a run, parented, named and attributed by the GenAI conventions', async () => {
    const { sink, log } = await exportingTo([], {
      OTEL_SERVICE_NAME: 'weather-service',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,team=ai',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector-key-1,x-tenant=acme',
    });
    const r = syntheticRun();
    for (const child of r.children) sink.addSpan(child);
    sink.addSpan(r.run);
    sink.addTrace(r.row);
    sink.flushSoon();
    await sink.flush();

    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0]!;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/traces', status: 200 });
    expect(request.headers['content-type']).toBe('application/x-protobuf');
    expect(request.headers['x-api-key']).toBe('collector-key-1');
    expect(request.headers['x-tenant']).toBe('acme');

    const spans = receiver.accepted();
    expect(spans).toHaveLength(5);
    const traceId = r.runId.replaceAll('-', '');
    for (const s of spans) {
      expect(s.traceId).toBe(traceId);
      expect(s.resource).toMatchObject({ 'service.name': 'weather-service', 'deployment.environment.name': 'test', team: 'ai', 'telemetry.sdk.language': 'nodejs' });
      expect(s.scope.name).toBe('@svc/runtime');
    }
    const bySpanId = new Map(spans.map((s) => [s.spanId, s]));
    const find = (p: PendingSpan): DecodedSpan => bySpanId.get(spanIdOf(p.span_id))!;

    const root = find(r.run);
    expect(root).toMatchObject({ name: 'invoke_agent weather-bot', parentSpanId: '', kind: 1, status: { code: 1, message: '' } });
    expect(root.startTimeUnixNano).toBe(nanos(T));
    expect(root.endTimeUnixNano).toBe(nanos(T + 2000));
    expect(root.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'weather-bot',
      'gen_ai.agent.name': 'weather-bot',
      'gen_ai.conversation.id': 'session-7',
      'svc.component_type': 'agent',
      'svc.usage.input_tokens': 42,
      'svc.usage.output_tokens': 12,
      'svc.kind': 'run',
      'svc.status': 'ok',
      'svc.span_id': r.run.span_id,
      'svc.input': 'Weather in Paris?',
      'svc.run_status': 'COMPLETED',
    });
    for (const child of r.children) expect(find(child).parentSpanId).toBe(root.spanId);

    const model1 = find(r.model1);
    expect(model1).toMatchObject({ name: 'chat gpt-4o-mini', kind: 3, status: { code: 1 } });
    expect(model1.startTimeUnixNano).toBe(nanos(T + 10));
    expect(model1.endTimeUnixNano).toBe(nanos(T + 410));
    expect(model1.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 4,
      'gen_ai.response.time_to_first_chunk': 0.25,
      'svc.kind': 'model',
      'svc.status': 'ok',
      'svc.span_id': r.model1.span_id,
      'svc.messages_sent': '[{"role":"user","content":"Weather in Paris?"}]',
      'svc.total_tokens': 19,
      'svc.latency_ms': 400,
    });
    const model2 = find(r.model2);
    expect(model2.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 30, 'gen_ai.usage.output_tokens': 5, 'gen_ai.response.finish_reasons': ['stop'] });
    expect(model2.attributes['svc.auth']).toBe('Bearer [redacted]');

    const tool = find(r.tool);
    expect(tool).toMatchObject({ name: 'execute_tool get_weather', kind: 1, status: { code: 1 } });
    expect(tool.startTimeUnixNano).toBe(nanos(T + 420));
    expect(tool.endTimeUnixNano).toBe(nanos(T + 900));
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_1',
      // A credential-named argument never leaves the process.
      'gen_ai.tool.call.arguments': '{"city":"Paris","api_key":"[redacted]"}',
      'gen_ai.tool.call.result': 'sunny, 21 C',
      'svc.kind': 'tool',
      'svc.status': 'ok',
      'svc.span_id': r.tool.span_id,
    });

    const failed = find(r.failed);
    expect(failed).toMatchObject({ name: 'execute_tool get_alerts', status: { code: 2, message: 'alerts service down' } });
    expect(failed.attributes).toMatchObject({ 'error.type': '_OTHER', 'svc.error': 'alerts service down', 'svc.status': 'error', 'gen_ai.tool.call.id': 'call_2' });

    expect(log.warnings).toEqual([]);
    await sink.close();
  });

  it('names the service svc-runtime by default and maps teams, workflows, members, knowledge and steps', async () => {
    const { sink } = await exportingTo();
    const runId = randomUUID();
    const base = { trace_id: runId, start_ms: T, end_ms: T + 5, input_tokens: null, output_tokens: null, attributes: {} };
    const workflow: PendingSpan = { ...base, span_id: randomUUID(), parent_id: null, kind: 'run', name: 'workflow:digest', status: 'cancelled' };
    const step: PendingSpan = { ...base, span_id: randomUUID(), parent_id: workflow.span_id, kind: 'step', name: 'summarise', status: 'ok', attributes: { step_index: 0 } };
    const member: PendingSpan = { ...base, span_id: randomUUID(), parent_id: step.span_id, kind: 'member', name: 'researcher', status: 'ok' };
    const knowledge: PendingSpan = { ...base, span_id: randomUUID(), parent_id: member.span_id, kind: 'knowledge', name: 'docs', status: 'ok', attributes: { query: 'q', limit: 5, search_type: null } };
    for (const s of [knowledge, member, step, workflow]) sink.addSpan(s);
    // No summary row: the held root goes out a microtask later, without a session.
    await sink.flush();

    const spans = new Map(receiver.accepted().map((s) => [s.spanId, s]));
    expect(spans.size).toBe(4);
    const got = (p: PendingSpan) => spans.get(spanIdOf(p.span_id))!;
    expect(got(workflow)).toMatchObject({ name: 'invoke_workflow digest', parentSpanId: '', status: { code: 0 } });
    expect(got(workflow).attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': 'digest', 'svc.status': 'cancelled' });
    expect(got(workflow).attributes['gen_ai.conversation.id']).toBeUndefined();
    expect(got(workflow).resource['service.name']).toBe('svc-runtime');
    expect(got(step)).toMatchObject({ name: 'summarise', parentSpanId: got(workflow).spanId, attributes: { 'svc.kind': 'step', 'svc.step_index': 0 } });
    expect(got(step).attributes['gen_ai.operation.name']).toBeUndefined();
    expect(got(member)).toMatchObject({ name: 'invoke_agent researcher', parentSpanId: got(step).spanId, attributes: { 'gen_ai.agent.id': 'researcher' } });
    expect(got(knowledge)).toMatchObject({
      name: 'retrieval docs',
      parentSpanId: got(member).spanId,
      attributes: { 'gen_ai.operation.name': 'retrieval', 'gen_ai.data_source.id': 'docs', 'svc.query': 'q', 'svc.limit': 5 },
    });
    // A null attribute is left out: OTLP has no null.
    expect('svc.search_type' in got(knowledge).attributes).toBe(false);
    await sink.close();
  });

  it('bounds attribute values to OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT bytes, noting what was cut', async () => {
    const { sink } = await exportingTo([], { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100' });
    const r = syntheticRun();
    sink.addSpan({ ...r.tool, attributes: { ...r.tool.attributes, result: 'x'.repeat(5000) } });
    await sink.flush();
    const [tool] = receiver.accepted();
    expect(tool!.attributes['gen_ai.tool.call.result']).toBe('x'.repeat(100));
    expect(tool!.attributes['svc.truncated']).toBe('{"result":5000}');
    await sink.close();
  });

  it('sends to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, rather than the base endpoint', async () => {
    receiver = await startOtlpReceiver();
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `${receiver.url}/collector/traces`);
    const sink = otlpSinkFromEnv(process.env, recordingLog());
    sink?.addSpan(syntheticRun().tool);
    await sink?.flush();
    expect(receiver.requests.map((q) => [q.path, q.spans.length])).toEqual([['/collector/traces', 1]]);
    await sink?.close();
  });

  it('retries a collector answering 503, and gets the spans through', async () => {
    const { sink, log } = await exportingTo([503, 503]);
    const r = syntheticRun();
    for (const child of r.children) sink.addSpan(child);
    await sink.flush();
    expect(receiver.requests.map((q) => q.status)).toEqual([503, 503, 200]);
    expect(receiver.accepted()).toHaveLength(4);
    expect(log.warnings).toEqual([]);
    await sink.close();
  });

  it('never throws into the caller when the collector keeps failing, and says so once', async () => {
    const { sink, log } = await exportingTo(Array<number>(20).fill(503), { OTEL_EXPORTER_OTLP_TIMEOUT: '5000' });
    const r = syntheticRun();
    expect(() => {
      for (const child of r.children) sink.addSpan(child);
      sink.addSpan(r.run);
      sink.addTrace(r.row);
      sink.flushSoon();
    }).not.toThrow();
    await expect(sink.flush()).resolves.toBeUndefined();
    // The first try and the SDK's five retries.
    expect(receiver.requests.map((q) => q.status)).toEqual(Array<number>(6).fill(503));
    expect(receiver.accepted()).toEqual([]);
    expect(log.warnings.filter((w) => w.startsWith('could not export 5 span(s) over OTLP'))).toHaveLength(1);
    await expect(sink.close()).resolves.toBeUndefined();
  });

  it('builds nothing, so sends nothing, when export is off', async () => {
    receiver = await startOtlpReceiver();
    expect(otlpSinkFromEnv({ OTEL_SERVICE_NAME: 'svc', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' })).toBeUndefined();
    expect(otlpSinkFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(otlpSinkFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(receiver.requests).toEqual([]);
  });
});

describe('OTLP ids and names', () => {
  it('keeps the run id as the trace id and derives span ids deterministically', () => {
    expect(traceIdOf('0b9e4a7c-1d2e-4f60-9a1b-2c3d4e5f6a7b')).toBe('0b9e4a7c1d2e4f609a1b2c3d4e5f6a7b');
    expect(traceIdOf('run-42')).toMatch(/^[0-9a-f]{32}$/);
    const id = randomUUID();
    expect(spanIdOf(id)).toMatch(/^[0-9a-f]{16}$/);
    expect(spanIdOf(id)).toBe(spanIdOf(id));
    expect(spanIdOf(id)).not.toBe(spanIdOf(randomUUID()));
  });

  it('writes the names the installed semantic-conventions package gives the GenAI attributes', () => {
    expect([
      gen.GEN_AI_OPERATION_NAME,
      gen.GEN_AI_PROVIDER_NAME,
      gen.GEN_AI_SYSTEM,
      gen.GEN_AI_REQUEST_MODEL,
      gen.GEN_AI_RESPONSE_FINISH_REASONS,
      gen.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
      gen.GEN_AI_USAGE_INPUT_TOKENS,
      gen.GEN_AI_USAGE_OUTPUT_TOKENS,
      gen.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      gen.GEN_AI_TOOL_NAME,
      gen.GEN_AI_TOOL_CALL_ID,
      gen.GEN_AI_TOOL_CALL_ARGUMENTS,
      gen.GEN_AI_TOOL_CALL_RESULT,
      gen.GEN_AI_AGENT_ID,
      gen.GEN_AI_AGENT_NAME,
      gen.GEN_AI_WORKFLOW_NAME,
      gen.GEN_AI_CONVERSATION_ID,
      gen.GEN_AI_DATA_SOURCE_ID,
      ...Object.values(gen.OPERATION),
    ]).toEqual([
      incubating.ATTR_GEN_AI_OPERATION_NAME,
      incubating.ATTR_GEN_AI_PROVIDER_NAME,
      incubating.ATTR_GEN_AI_SYSTEM,
      incubating.ATTR_GEN_AI_REQUEST_MODEL,
      incubating.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
      incubating.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
      incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      incubating.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      incubating.ATTR_GEN_AI_TOOL_NAME,
      incubating.ATTR_GEN_AI_TOOL_CALL_ID,
      incubating.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
      incubating.ATTR_GEN_AI_TOOL_CALL_RESULT,
      incubating.ATTR_GEN_AI_AGENT_ID,
      incubating.ATTR_GEN_AI_AGENT_NAME,
      incubating.ATTR_GEN_AI_WORKFLOW_NAME,
      incubating.ATTR_GEN_AI_CONVERSATION_ID,
      incubating.ATTR_GEN_AI_DATA_SOURCE_ID,
      incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
      incubating.GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL,
    ]);
  });
});
