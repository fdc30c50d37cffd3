/**
 * @module traces/metrics
 * Usage over a time window, from the trace tables: per UTC day, per component (agent, team,
 * workflow) per day, and per model per day: runs (or model calls), errors, tokens in and out,
 * and p50/p95 latency. Two queries (runs, model calls) read the window's rows and the groups are
 * made here, because a percentile is not written the same way in SQLite and PostgreSQL. Cost is
 * null: prices are not known here.
 */
import type { Db, SqlValue } from '../storage/db.js';

export interface UsageRow {
  date: string;
  runs: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  p50_latency_ms: number;
  p95_latency_ms: number;
  cost: null;
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
}

class Group {
  readonly durations: number[] = [];
  errors = 0;
  input = 0;
  output = 0;
  add(s: Sample): void {
    this.durations.push(s.duration_ms);
    if (s.error) this.errors++;
    this.input += s.input_tokens;
    this.output += s.output_tokens;
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
      cost: null,
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

/** The window's usage; `userId` confines it to one user's runs. */
export async function usageMetrics(db: Db, fromMs: number, toMs: number, userId?: string): Promise<Metrics> {
  const params: SqlValue[] = [fromMs, toMs];
  if (userId !== undefined) params.push(userId);
  const byUser = userId !== undefined ? ' AND t.user_id = $3' : '';
  const runs = await db.query<Record<string, unknown>>(
    `SELECT t.start_ms, t.duration_ms, t.status, t.input_tokens, t.output_tokens, t.component_type, t.component_id
     FROM svc_traces t WHERE t.start_ms >= $1 AND t.start_ms < $2${byUser}`,
    params,
  );
  const calls = await db.query<Record<string, unknown>>(
    `SELECT s.start_ms, s.end_ms, s.status, s.input_tokens, s.output_tokens, s.name
     FROM svc_trace_spans s JOIN svc_traces t ON t.trace_id = s.trace_id
     WHERE s.kind = 'model' AND s.start_ms >= $1 AND s.start_ms < $2${byUser}`,
    params,
  );
  const runSamples = runs.map((r) => ({
    start_ms: Number(r.start_ms),
    duration_ms: Number(r.duration_ms),
    error: r.status === 'ERROR',
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    component: [String(r.component_type), String(r.component_id)],
  }));
  const callSamples = calls.map((r) => ({
    start_ms: Number(r.start_ms),
    duration_ms: Number(r.end_ms) - Number(r.start_ms),
    error: r.status === 'error',
    input_tokens: Number(r.input_tokens ?? 0),
    output_tokens: Number(r.output_tokens ?? 0),
    name: String(r.name),
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
    models: grouped(callSamples, (s) => [day(s.start_ms), s.name]).map(({ parts: [date, name], group }) => {
      // A model span is named provider/model; a provider id has no slash, a model id may.
      const slash = name!.indexOf('/');
      return { ...group.row(date!), provider: slash < 0 ? '' : name!.slice(0, slash), model: slash < 0 ? name! : name!.slice(slash + 1) };
    }),
  };
}
