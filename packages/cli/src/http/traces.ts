/**
 * The runtime's traces API (GET /traces, GET /traces/{run_id}). Every answer becomes Traces, a
 * TraceTree or a CliError with a next step; the credential travels only in the Authorization
 * header and never appears in a message. Answers are checked field by field, so what the
 * command prints (and passes on under --json) has the shape it promises.
 */
import { CliError } from '../errors.js';
import { isObject, parseJson, type JsonValue } from '../util/json.js';
import { type HttpResponse } from './request.js';
import { callRuntime } from './runtime-call.js';
import { errorDetail } from './service-accounts.js';

const TIMEOUT_MS = 30_000;

export const TRACES_CREDENTIAL_HINT = 'Set SVC_ADMIN_TOKEN (or OS_SECURITY_KEY) to a credential holding the traces:read scope (or admin).';

export interface Trace {
  run_id: string;
  session_id: string;
  component_type: string;
  component_id: string;
  user_id: string | null;
  status: string;
  error: string | null;
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  input_tokens: number;
  output_tokens: number;
}

export interface Span {
  span_id: string;
  parent_id: string | null;
  kind: string;
  name: string;
  start_ms: number;
  end_ms: number;
  status: string;
  input_tokens: number | null;
  output_tokens: number | null;
  attributes: { [key: string]: JsonValue };
  children: Span[];
}

export interface TraceTree extends Trace {
  spans: Span[];
}

export interface TracePage {
  traces: Trace[];
  next_cursor: string | null;
}

/** The query of GET /traces, in the API's own parameter names. */
export type TraceQuery = Partial<Record<'agent_id' | 'team_id' | 'workflow_id' | 'session_id' | 'user_id' | 'status' | 'cursor', string>> &
  Partial<Record<'from' | 'min_duration_ms' | 'limit', number>>;

const str = (v: unknown): v is string => typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const strOrNull = (v: unknown): string | null => (str(v) ? v : null);
const numOrNull = (v: unknown): number | null => (num(v) ? v : null);

function parseTrace(v: unknown): Trace | undefined {
  if (!isObject(v) || !str(v.run_id) || !str(v.component_type) || !str(v.component_id) || !str(v.status)) return undefined;
  if (!num(v.start_ms) || !num(v.end_ms) || !num(v.duration_ms) || !num(v.input_tokens) || !num(v.output_tokens)) return undefined;
  return {
    run_id: v.run_id,
    session_id: str(v.session_id) ? v.session_id : '',
    component_type: v.component_type,
    component_id: v.component_id,
    user_id: strOrNull(v.user_id),
    status: v.status,
    error: strOrNull(v.error),
    start_ms: v.start_ms,
    end_ms: v.end_ms,
    duration_ms: v.duration_ms,
    input_tokens: v.input_tokens,
    output_tokens: v.output_tokens,
  };
}

/** Depth is bounded by what the runtime nests (team -> member -> tool); 64 guards a hostile answer. */
function parseSpan(v: unknown, depth = 0): Span | undefined {
  if (depth > 64 || !isObject(v) || !str(v.span_id) || !str(v.kind) || !str(v.name) || !str(v.status) || !num(v.start_ms) || !num(v.end_ms)) return undefined;
  const children: Span[] = [];
  for (const c of Array.isArray(v.children) ? v.children : []) {
    const child = parseSpan(c, depth + 1);
    if (!child) return undefined;
    children.push(child);
  }
  return {
    span_id: v.span_id,
    parent_id: strOrNull(v.parent_id),
    kind: v.kind,
    name: v.name,
    start_ms: v.start_ms,
    end_ms: v.end_ms,
    status: v.status,
    input_tokens: numOrNull(v.input_tokens),
    output_tokens: numOrNull(v.output_tokens),
    // Parsed from JSON text, so every value in it is a JSON value.
    attributes: isObject(v.attributes) ? (v.attributes as { [key: string]: JsonValue }) : {},
    children,
  };
}

export class TracesClient {
  constructor(
    private readonly base: string,
    private readonly credential: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  async list(query: TraceQuery): Promise<TracePage> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const qs = search.toString();
    const path = qs === '' ? '/traces' : `/traces?${qs}`;
    const res = await this.get(path);
    if (res.status !== 200) throw new CliError('API_ERROR', `The runtime refused to list runs: ${errorDetail(res)}`, { status: res.status });
    const body = parseJson(res.body);
    const data = isObject(body) && Array.isArray(body.data) ? body.data.map(parseTrace) : undefined;
    if (!data || data.some((t) => t === undefined)) throw this.badResponse('GET /traces');
    const meta = isObject(body) && isObject(body.meta) ? body.meta : {};
    return { traces: data as Trace[], next_cursor: strOrNull(meta.next_cursor) };
  }

  async tree(runId: string): Promise<TraceTree> {
    const res = await this.get(`/traces/${encodeURIComponent(runId)}`);
    if (res.status === 404) {
      throw new CliError('NOT_FOUND', `No trace for run ${runId}.`, {
        hint: "Check the run id (svc traces lists recent runs). A run's trace is written when the run ends, and a user sees only their own runs.",
        status: 404,
      });
    }
    if (res.status !== 200) throw new CliError('API_ERROR', `The runtime refused to show run ${runId}: ${errorDetail(res)}`, { status: res.status });
    const body = parseJson(res.body);
    const trace = parseTrace(body);
    const spans = isObject(body) && Array.isArray(body.spans) ? body.spans.map((s) => parseSpan(s)) : undefined;
    if (!trace || !spans || spans.some((s) => s === undefined)) throw this.badResponse(`GET /traces/${runId}`);
    return { ...trace, spans: spans as Span[] };
  }

  private badResponse(what: string): CliError {
    return new CliError('BAD_RESPONSE', `The runtime at ${this.base} gave an unexpected answer to ${what}.`, { hint: 'Check the URL (--url or RUNTIME_URL); traces need a runtime that serves /traces.' });
  }

  private get(path: string): Promise<HttpResponse> {
    return callRuntime({
      base: this.base, credential: this.credential, env: this.env, method: 'GET', path, timeoutMs: TIMEOUT_MS,
      credentialHint: TRACES_CREDENTIAL_HINT, refused: 'The credential is not allowed to read traces',
    });
  }
}
