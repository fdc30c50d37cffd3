/**
 * @module traces/otlp-span
 * One finished span as the OpenTelemetry SDK's exporters take it (a `ReadableSpan`), named and
 * attributed by the GenAI semantic conventions so that backends show model calls with their
 * model, provider and token usage, and tool calls with their name, call id, arguments and
 * result. The runtime's spans are made by its own tracer (traces/tracer.ts), not the SDK's, so
 * the SDK is used from the processor down: this is the one place the two models meet.
 *
 * Ids: the trace id is the run id's 32 hex digits (so a trace found in a backend leads straight
 * to GET /traces/{run id}); a span id is the first 16 hex digits of the SHA-256 of the span's
 * UUID: deterministic (a parent's id is computed from the child's `parent_id` without a lookup)
 * and spread over all 64 bits, which a UUID's own halves are not (version and variant bits).
 * The span's UUID is kept as `svc.span_id` to find it in the runtime's store.
 */
import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type AttributeValue, type HrTime, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_OTHER } from '@opentelemetry/semantic-conventions';
import * as gen from './genai.js';
import { boundAttributes } from './payload.js';
import type { PendingSpan, TraceRow } from './rows.js';

/** What every exported span shares. */
export interface OtlpSpanContext {
  resource: Resource;
  scope: { name: string; version?: string };
  /** The most an attribute value keeps, in UTF-8 bytes (traces/payload's bound when undefined). */
  attributeLimit: number | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const digest = (id: string, hexDigits: number): string => createHash('sha256').update(id).digest('hex').slice(0, hexDigits);

/** The OTLP trace id of a run: its UUID's hex digits (a run id that is not a UUID is hashed). */
export function traceIdOf(runId: string): string {
  return UUID.test(runId) ? runId.replaceAll('-', '').toLowerCase() : digest(runId, 32);
}

/** The OTLP span id of a span's UUID. */
export function spanIdOf(spanId: string): string {
  return digest(spanId, 16);
}

const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** What the mapping of a span kind puts first: the span's name and kind and its convention attributes. */
interface Mapped {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  /** Attribute keys the conventions took, left out of the `svc.*` copy. */
  used: readonly string[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const json = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value));

/** Attributes without the undefined entries (an OTLP attribute has a value). */
function defined(entries: Record<string, AttributeValue | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}

function mapModel(span: PendingSpan, a: Record<string, unknown>): Mapped {
  // The tracer names a model span `provider/model`; the attributes say the same, more reliably.
  const slash = span.name.indexOf('/');
  const provider = text(a.provider) ?? (slash > 0 ? span.name.slice(0, slash) : undefined);
  const model = text(a.model) ?? span.name.slice(slash + 1);
  const reason = text(a.finish_reason);
  const ttft = count(a.ttft_ms);
  return {
    name: `${gen.OPERATION.chat} ${model}`,
    // The model runs at the provider: a client call, as the conventions have inference spans.
    kind: SpanKind.CLIENT,
    attributes: defined({
      [gen.GEN_AI_OPERATION_NAME]: gen.OPERATION.chat,
      [gen.GEN_AI_PROVIDER_NAME]: provider,
      [gen.GEN_AI_SYSTEM]: provider,
      [gen.GEN_AI_REQUEST_MODEL]: model,
      [gen.GEN_AI_RESPONSE_FINISH_REASONS]: reason === undefined ? undefined : [reason],
      [gen.GEN_AI_USAGE_INPUT_TOKENS]: span.input_tokens ?? undefined,
      [gen.GEN_AI_USAGE_OUTPUT_TOKENS]: span.output_tokens ?? undefined,
      [gen.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: count(a.cached_tokens),
      [gen.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK]: ttft === undefined ? undefined : ttft / 1000,
    }),
    used: ['provider', 'model', 'finish_reason', 'input_tokens', 'output_tokens', 'cached_tokens', 'ttft_ms'],
  };
}

function mapTool(span: PendingSpan, a: Record<string, unknown>): Mapped {
  return {
    name: `${gen.OPERATION.executeTool} ${span.name}`,
    kind: SpanKind.INTERNAL,
    attributes: defined({
      [gen.GEN_AI_OPERATION_NAME]: gen.OPERATION.executeTool,
      [gen.GEN_AI_TOOL_NAME]: span.name,
      [gen.GEN_AI_TOOL_CALL_ID]: text(a.tool_call_id),
      [gen.GEN_AI_TOOL_CALL_ARGUMENTS]: json(a.arguments),
      [gen.GEN_AI_TOOL_CALL_RESULT]: json(a.result),
    }),
    used: ['tool_call_id', 'arguments', 'result'],
  };
}

/** The run's root span: an agent or team invocation, or a workflow's. */
function mapRun(span: PendingSpan, a: Record<string, unknown>, run: TraceRow | undefined): Mapped {
  // The tracer names a run span `{component type}:{component id}`; the summary row, when it came, says so directly.
  const colon = span.name.indexOf(':');
  const type = run?.component_type ?? (colon > 0 ? span.name.slice(0, colon) : 'agent');
  const id = run?.component_id ?? span.name.slice(colon + 1);
  const workflow = type === 'workflow';
  const operation = workflow ? gen.OPERATION.invokeWorkflow : gen.OPERATION.invokeAgent;
  return {
    name: `${operation} ${id}`,
    kind: SpanKind.INTERNAL,
    attributes: defined({
      [gen.GEN_AI_OPERATION_NAME]: operation,
      ...(workflow ? { [gen.GEN_AI_WORKFLOW_NAME]: id } : { [gen.GEN_AI_AGENT_ID]: id, [gen.GEN_AI_AGENT_NAME]: id }),
      [gen.GEN_AI_CONVERSATION_ID]: run?.session_id,
      'svc.component_type': type,
      // The run's totals are its model spans' sums: kept out of gen_ai.usage.*, which backends add up across a trace.
      'svc.usage.input_tokens': span.input_tokens ?? undefined,
      'svc.usage.output_tokens': span.output_tokens ?? undefined,
    }),
    used: ['input_tokens', 'output_tokens'],
  };
}

function mapSpan(span: PendingSpan, a: Record<string, unknown>, run: TraceRow | undefined): Mapped {
  switch (span.kind) {
    case 'model':
      return mapModel(span, a);
    case 'tool':
      return mapTool(span, a);
    case 'run':
      return mapRun(span, a, run);
    case 'member':
      // A team handing a task to a member agent: an agent invocation inside the team's.
      return {
        name: `${gen.OPERATION.invokeAgent} ${span.name}`,
        kind: SpanKind.INTERNAL,
        attributes: { [gen.GEN_AI_OPERATION_NAME]: gen.OPERATION.invokeAgent, [gen.GEN_AI_AGENT_ID]: span.name, [gen.GEN_AI_AGENT_NAME]: span.name },
        used: [],
      };
    case 'knowledge':
      return {
        name: `${gen.OPERATION.retrieval} ${span.name}`,
        kind: SpanKind.INTERNAL,
        attributes: { [gen.GEN_AI_OPERATION_NAME]: gen.OPERATION.retrieval, [gen.GEN_AI_DATA_SOURCE_ID]: span.name },
        used: [],
      };
    default:
      // Workflow steps (and any later kind): no convention covers them, so their own name.
      return { name: span.name, kind: SpanKind.INTERNAL, attributes: {}, used: [] };
  }
}

/** An attribute value as OTLP carries it: scalars as they are, anything else as its JSON text. */
function scalar(value: unknown): AttributeValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

function statusOf(span: PendingSpan, error: string | undefined): SpanStatus {
  if (span.status === 'ok') return { code: SpanStatusCode.OK };
  // A cancelled span was stopped on purpose, not failed: unset, with `svc.status` saying so.
  if (span.status === 'cancelled') return { code: SpanStatusCode.UNSET };
  return error === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: error };
}

/**
 * `span` as the SDK's exporters read it. `run` is the run's summary, for a run span (its
 * session and component); attributes are redacted and bounded (traces/payload) before anything
 * is taken from them, so no exported value carries a credential or exceeds the bound.
 */
export function toReadableSpan(span: PendingSpan, run: TraceRow | undefined, context: OtlpSpanContext): ReadableSpan {
  const bounded = boundAttributes(span.attributes, context.attributeLimit);
  const mapped = mapSpan(span, bounded, run);
  const attributes: Attributes = { ...mapped.attributes, 'svc.kind': span.kind, 'svc.status': span.status, 'svc.span_id': span.span_id };
  for (const [key, value] of Object.entries(bounded)) {
    if (mapped.used.includes(key)) continue;
    const v = scalar(value);
    if (v !== undefined) attributes[`svc.${key}`] = v;
  }
  const error = span.status === 'error' ? text(bounded.error) : undefined;
  if (span.status === 'error') attributes[ATTR_ERROR_TYPE] = text(bounded.error_code) ?? ERROR_TYPE_VALUE_OTHER;

  const traceId = traceIdOf(span.trace_id);
  const own: SpanContext = { traceId, spanId: spanIdOf(span.span_id), traceFlags: TraceFlags.SAMPLED };
  const parent: SpanContext | undefined = span.parent_id === null ? undefined : { traceId, spanId: spanIdOf(span.parent_id), traceFlags: TraceFlags.SAMPLED };
  return {
    name: mapped.name,
    kind: mapped.kind,
    spanContext: () => own,
    ...(parent ? { parentSpanContext: parent } : {}),
    startTime: hrTime(span.start_ms),
    endTime: hrTime(span.end_ms),
    duration: hrTime(Math.max(0, span.end_ms - span.start_ms)),
    status: statusOf(span, error),
    attributes,
    links: [],
    events: [],
    ended: true,
    resource: context.resource,
    instrumentationScope: context.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
