/**
 * @module traces/metrics
 * Usage over a time window, from the trace tables: per UTC day, per component (agent, team,
 * workflow) per day, and per model per day: runs that have ended (or model calls), errors, tokens in and out,
 * and p50/p95 latency. Two queries (runs, model calls) read the window's rows and the groups are
 * made here, because a percentile is not written the same way in SQLite and PostgreSQL. Cost is
 * in USD when a price table is given (MODEL_PRICES_JSON) and every model call in the group has a
 * price, else null: a sum that left some calls out would read as the whole cost. A call's
 * prompt-cache reads and writes are priced at their own rates (model/pricing's costOf).
 */
import type { Usage } from '../model/model.js';
import { costOf } from '../model/pricing.js';
import type { ModelPrices } from '../settings/pricing.js';
import type { Db, SqlValue } from '../storage/db.js';

export interface UsageRow {
  date: string;
  runs: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  p50_latency_ms: number;
  p95_latency_ms: number;
  /** USD; null without a price table or when a call in the group has no price. */
  cost: number | null;
}

export interface Metrics {
  from_ms: number;
  to_ms: number;
  days: UsageRow[];
  components: (UsageRow & { component_type: string; component_id: string })[];
  /** `runs` counts model calls here. */
  models: (UsageRow & { provider: string; model: string })[];
}

interface Sample {
  start_ms: number;
  duration_ms: number;
  error: boolean;
  input_tokens: number;
  output_tokens: number;
  /** USD, undefined when not priced. */
  cost: number | undefined;
}

class Group {
  readonly durations: number[] = [];
  errors = 0;
  input = 0;
  output = 0;
  cost = 0;
  unpriced = false;
  add(s: Sample): void {
    this.durations.push(s.duration_ms);
    if (s.error) this.errors++;
    this.input += s.input_tokens;
    this.output += s.output_tokens;
    if (s.cost === undefined) this.unpriced = true;
    else this.cost += s.cost;
  }
  row(date: string): UsageRow {
    const sorted = this.durations.sort((a, b) => a - b);
    return {
      date,
      runs: sorted.length,
      errors: this.errors,
      input_tokens: this.input,
      output_tokens: this.output,
      p50_latency_ms: percentile(sorted, 0.5),
      p95_latency_ms: percentile(sorted, 0.95),
      // Rounded to a millionth of a dollar: sums of per-call floats otherwise print as 0.30000000000000004.
      cost: this.unpriced ? null : Math.round(this.cost * 1e6) / 1e6,
    };
  }
}

/** Nearest rank: the smallest value with at least `p` of the values at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Groups samples by a key; the key's parts come back with each group. */
function grouped<T extends Sample>(samples: readonly T[], key: (s: T) => string[]): { parts: string[]; group: Group }[] {
  const groups = new Map<string, { parts: string[]; group: Group }>();
  for (const s of samples) {
    const parts = key(s);
    const id = JSON.stringify(parts);
    let entry = groups.get(id);
    if (!entry) groups.set(id, (entry = { parts, group: new Group() }));
    entry.group.add(s);
  }
  return [...groups.values()].sort((a, b) => (a.parts.join('\u0000') < b.parts.join('\u0000') ? -1 : 1));
}

/** A model span's name is provider/model; a provider id has no slash, a model id may. */
/** A stored model call's Usage, cache counts included where the provider reported them. */
function usageOf(row: Record<string, unknown>, input: number, output: number): Usage {
  const cached = row.cached_input_tokens;
  const written = row.cache_write_input_tokens;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    ...(cached === null || cached === undefined ? {} : { cachedInputTokens: Number(cached) }),
    ...(written === null || written === undefined ? {} : { cacheWriteInputTokens: Number(written) }),
  };
}

function splitName(name: string): { provider: string; model: string } {
  const slash = name.indexOf('/');
  return slash < 0 ? { provider: '', model: name } : { provider: name.slice(0, slash), model: name.slice(slash + 1) };
}

/**
 * The window's usage; `userId` confines it to one user's runs and `tenantId` to one tenant's;
 * `prices` puts a cost on it.
 */
export async function usageMetrics(db: Db, fromMs: number, toMs: number, userId?: string, prices?: ModelPrices, tenantId?: string): Promise<Metrics> {
  const params: SqlValue[] = [fromMs, toMs];
  let byUser = '';
  if (userId !== undefined) {
    params.push(userId);
    byUser += ` AND t.user_id = $${params.length}`;
  }
  if (tenantId !== undefined) {
    params.push(tenantId);
    byUser += ` AND t.tenant_id = $${params.length}`;
  }
  const runs = await db.query<Record<string, unknown>>(
    `SELECT t.trace_id, t.start_ms, t.duration_ms, t.status, t.input_tokens, t.output_tokens, t.component_type, t.component_id
     FROM svc_traces t WHERE t.start_ms >= $1 AND t.start_ms < $2 AND t.status <> 'RUNNING'${byUser}`,
    params,
  );
  const calls = await db.query<Record<string, unknown>>(
    `SELECT s.trace_id, s.start_ms, s.end_ms, s.status, s.input_tokens, s.output_tokens, s.cached_input_tokens, s.cache_write_input_tokens, s.name
     FROM svc_trace_spans s JOIN svc_traces t ON t.trace_id = s.trace_id
     WHERE s.kind = 'model' AND s.start_ms >= $1 AND s.start_ms < $2${byUser}`,
    params,
  );
  const callSamples = calls.map((r) => {
    const input = Number(r.input_tokens ?? 0);
    const output = Number(r.output_tokens ?? 0);
    const name = String(r.name);
    return {
      trace: String(r.trace_id),
      start_ms: Number(r.start_ms),
      duration_ms: Number(r.end_ms) - Number(r.start_ms),
      error: r.status === 'error',
      input_tokens: input,
      output_tokens: output,
      name,
      cost: prices ? costOf(usageOf(r, input, output), splitName(name).model, prices) : undefined,
    };
  });
  // A run costs what its model calls cost; undefined once one of them has no price.
  const runCosts = new Map<string, number | undefined>();
  for (const call of callSamples) {
    const sum = runCosts.has(call.trace) ? runCosts.get(call.trace) : 0;
    runCosts.set(call.trace, sum === undefined || call.cost === undefined ? undefined : sum + call.cost);
  }
  const runSamples = runs.map((r) => ({
    start_ms: Number(r.start_ms),
    duration_ms: Number(r.duration_ms),
    error: r.status === 'ERROR',
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    component: [String(r.component_type), String(r.component_id)],
    cost: prices ? (runCosts.has(String(r.trace_id)) ? runCosts.get(String(r.trace_id)) : 0) : undefined,
  }));
  return {
    from_ms: fromMs,
    to_ms: toMs,
    days: grouped(runSamples, (s) => [day(s.start_ms)]).map(({ parts, group }) => group.row(parts[0]!)),
    components: grouped(runSamples, (s) => [day(s.start_ms), ...s.component]).map(({ parts: [date, type, id], group }) => ({
      ...group.row(date!),
      component_type: type!,
      component_id: id!,
    })),
    models: grouped(callSamples, (s) => [day(s.start_ms), s.name]).map(({ parts: [date, name], group }) => ({ ...group.row(date!), ...splitName(name!) })),
  };
}
