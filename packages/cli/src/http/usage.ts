/**
 * The runtime's usage API (GET /usage): the caller's consumption against the budgets that
 * apply to it (an admin may name a principal, tenant or agent). The answer is checked field by
 * field and becomes a Usage or a CliError with a next step; the credential travels only in the
 * Authorization header.
 */
import { CliError } from '../errors.js';
import { isObject, parseJson } from '../util/json.js';
import { callRuntime } from './runtime-call.js';
import { errorDetail } from './service-accounts.js';

const TIMEOUT_MS = 30_000;

export const USAGE_CREDENTIAL_HINT =
  'Set SVC_ADMIN_TOKEN (or OS_SECURITY_KEY) to your credential: any token shows its own usage; naming --principal, --tenant or --agent needs the admin scope.';

export interface UsageLine {
  budget: { id: string; scope: string; subject: string | null; metric: string; window: string; limit: number; source: string; created_at: number | null; updated_at: number | null };
  subject: string;
  used: number;
  remaining: number;
  window_start: number;
  resets_at: number;
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface Usage {
  principal: string | null;
  tenant: string | null;
  agent: string | null;
  budgets: UsageLine[];
}

export interface UsageQuery {
  principal?: string | undefined;
  tenant?: string | undefined;
  agent?: string | undefined;
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const str = (v: unknown): v is string => typeof v === 'string';
const numOrNull = (v: unknown): v is number | null => v === null || num(v);
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';

function parseLine(v: unknown): UsageLine | undefined {
  if (!isObject(v) || !isObject(v.budget) || !str(v.subject)) return undefined;
  const b = v.budget;
  if (!str(b.id) || !str(b.scope) || !strOrNull(b.subject) || !str(b.metric) || !str(b.window) || !num(b.limit) || !str(b.source)) return undefined;
  if (!numOrNull(b.created_at) || !numOrNull(b.updated_at)) return undefined;
  const figures = [v.used, v.remaining, v.window_start, v.resets_at, v.runs, v.input_tokens, v.output_tokens, v.cost_usd];
  if (!figures.every(num)) return undefined;
  return {
    budget: { id: b.id, scope: b.scope, subject: b.subject, metric: b.metric, window: b.window, limit: b.limit, source: b.source, created_at: b.created_at, updated_at: b.updated_at },
    subject: v.subject,
    used: v.used as number,
    remaining: v.remaining as number,
    window_start: v.window_start as number,
    resets_at: v.resets_at as number,
    runs: v.runs as number,
    input_tokens: v.input_tokens as number,
    output_tokens: v.output_tokens as number,
    cost_usd: v.cost_usd as number,
  };
}

export function parseUsage(v: unknown): Usage | undefined {
  if (!isObject(v) || !strOrNull(v.principal) || !strOrNull(v.tenant) || !strOrNull(v.agent) || !Array.isArray(v.budgets)) return undefined;
  const lines = v.budgets.map(parseLine);
  if (lines.some((l) => l === undefined)) return undefined;
  return { principal: v.principal, tenant: v.tenant, agent: v.agent, budgets: lines as UsageLine[] };
}

export class UsageClient {
  constructor(
    private readonly base: string,
    private readonly credential: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  async get(query: UsageQuery): Promise<Usage> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
    const path = `/usage${params.size ? `?${params.toString()}` : ''}`;
    const res = await callRuntime({ base: this.base, credential: this.credential, env: this.env, method: 'GET', path, timeoutMs: TIMEOUT_MS, credentialHint: USAGE_CREDENTIAL_HINT });
    if (res.status !== 200) throw new CliError('API_ERROR', `The runtime refused to show usage: ${errorDetail(res)}`, { status: res.status });
    const usage = parseUsage(parseJson(res.body));
    if (!usage) {
      throw new CliError('BAD_RESPONSE', `The runtime at ${this.base} gave an unexpected answer to GET /usage.`, {
        hint: 'Check the URL (--url or RUNTIME_URL); usage needs a runtime that serves /usage (budgets).',
      });
    }
    return usage;
  }
}
