/**
 * OpenTelemetry export end to end: a runtime in a process of its own, told only the standard
 * OTEL_* variables, runs an agent with a tool against the loopback model, and a loopback OTLP
 * receiver decoding the protobuf it is sent gets every span of the run, parented as the run's
 * tree, named and attributed by the GenAI conventions, with the token counts the model reported
 * on the model spans and the trace id leading back to GET /traces/{run_id}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startChildRuntime, type ChildRuntime } from './support/child-runtime.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startOtlpReceiver, type DecodedSpan, type OtlpReceiver } from './support/otlp-receiver.js';

const USAGE = { inputTokens: 41, outputTokens: 9 };

describe('OTLP export from a runtime process', () => {
  let fake: FakeLlm;
  let receiver: OtlpReceiver;
  let runtime: ChildRuntime;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeLlm({ usage: USAGE });
    receiver = await startOtlpReceiver();
    dir = mkdtempSync(join(tmpdir(), 'svc-otlp-'));
    runtime = await startChildRuntime({
      DATABASE_URL: join(dir, 'runtime.db'),
      FAKE_LLM_URL: fake.url,
      PORT: String(await freePort()),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k-123',
      OTEL_SERVICE_NAME: 'svc-e2e',
      // Batches go out after 200 ms instead of the SDK's 5 s default.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
  }, 60_000);
  afterAll(async () => {
    await runtime?.kill();
    await receiver?.close();
    await fake?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('sends every span of a run, parented as its tree, with GenAI names, attributes and token usage', async () => {
    const res = await call(runtime.url, 'POST', '/agents/weather/runs', { body: { message: 'Weather in Quito?', stream: false } });
    expect(res.status).toBe(200);
    const runId = res.body.run_id as string;
    const traceId = runId.replaceAll('-', '');
    const spans = await eventually(() => {
      const mine = receiver.accepted().filter((s) => s.traceId === traceId);
      return mine.length >= 4 ? mine : undefined;
    }, 15_000, 'the run to be exported');
    expect(spans).toHaveLength(4);
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [root] = byName('invoke_agent weather') as [DecodedSpan];
    const chats = byName('chat fake-model');
    const [tool] = byName('execute_tool get_weather') as [DecodedSpan];
    expect(root.parentSpanId).toBe('');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(root.spanId);
      expect(chat.kind).toBe(3);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.provider.name': 'openai',
        'gen_ai.usage.input_tokens': USAGE.inputTokens,
        'gen_ai.usage.output_tokens': USAGE.outputTokens,
      });
    }
    expect(tool.parentSpanId).toBe(root.spanId);
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' });
    expect(root.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'weather' });
    expect(spans.every((s) => s.status.code !== 2)).toBe(true);
    // Children end inside their parent, and the times are real epoch nanoseconds.
    for (const child of [...chats, tool]) {
      expect(child.startTimeUnixNano >= root.startTimeUnixNano && child.endTimeUnixNano <= root.endTimeUnixNano).toBe(true);
    }
    expect(Number(root.startTimeUnixNano / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000);
    expect(root.resource['service.name']).toBe('svc-e2e');
    const request = receiver.requests.find((r) => r.spans.some((s) => s.traceId === traceId))!;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/traces', headers: { 'x-collector-key': 'k-123', 'content-type': 'application/x-protobuf' } });
    // The same run, stored: the trace id leads back to it.
    const stored = await eventually(async () => {
      const t = await call(runtime.url, 'GET', `/traces/${runId}`);
      return t.status === 200 && t.body.status !== 'RUNNING' ? t.body : undefined;
    }, 10_000, 'the stored trace');
    expect(stored).toMatchObject({ run_id: runId, input_tokens: 2 * USAGE.inputTokens, output_tokens: 2 * USAGE.outputTokens });
  }, 60_000);
});
