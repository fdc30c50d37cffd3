/**
 * @module budgets/usage-store
 * The usage counters (`svc_budget_usage`): one row per scope's subject, window and bucket,
 * changed only by single-statement UPSERTs with RETURNING, so runtimes sharing a PostgreSQL
 * database count together without a lost update. Cost is kept in whole nano-USD, so adding
 * never rounds.
 */
import type { Db, SqlClient } from '../storage/db.js';
import { NO_CONSUMPTION, type Consumption, type CounterKey } from './types.js';

interface Row {
  runs: number | string;
  input_tokens: number | string;
  output_tokens: number | string;
  cost_nanousd: number | string;
}

const NANO = 1e9;
const RETURNING = 'RETURNING runs, input_tokens, output_tokens, cost_nanousd';
const INSERT = `INSERT INTO svc_budget_usage (scope, subject, period, bucket_ms, runs, input_tokens, output_tokens, cost_nanousd, updated_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

function toConsumption(row: Row | undefined): Consumption {
  if (!row) return NO_CONSUMPTION;
  return { runs: Number(row.runs), inputTokens: Number(row.input_tokens), outputTokens: Number(row.output_tokens), costUsd: Number(row.cost_nanousd) / NANO };
}

const keyParams = (k: CounterKey) => [k.scope, k.subject, k.window, k.bucketMs] as const;

/** A stable order for counters a transaction changes, so two transactions never wait on each other in a circle. */
export function counterOrder(a: CounterKey, b: CounterKey): number {
  const ka = `${a.scope}\u0000${a.subject}\u0000${a.window}\u0000${a.bucketMs}`;
  const kb = `${b.scope}\u0000${b.subject}\u0000${b.window}\u0000${b.bucketMs}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export class UsageStore {
  constructor(readonly db: Db) {}

  /**
   * Counts one more run on `key`, unless that would take it past `maxRuns`: the consumption
   * after the increment, or undefined when refused (nothing changed).
   */
  async addRun(client: SqlClient, key: CounterKey, maxRuns: number | undefined, nowMs: number): Promise<Consumption | undefined> {
    if (maxRuns !== undefined && maxRuns < 1) return undefined;
    const cap = maxRuns === undefined ? '' : ` WHERE svc_budget_usage.runs < $10`;
    const rows = await client.query<Row>(
      `${INSERT} ON CONFLICT (scope, subject, period, bucket_ms) DO UPDATE SET runs = svc_budget_usage.runs + 1, updated_ms = excluded.updated_ms${cap} ${RETURNING}`,
      [...keyParams(key), 1, 0, 0, 0, nowMs, ...(maxRuns === undefined ? [] : [maxRuns])],
    );
    return rows[0] ? toConsumption(rows[0]) : undefined;
  }

  /** Takes back a run counted by `addRun` that did not start. */
  async removeRun(key: CounterKey): Promise<void> {
    await this.db.execute('UPDATE svc_budget_usage SET runs = runs - 1 WHERE scope = $1 AND subject = $2 AND period = $3 AND bucket_ms = $4 AND runs > 0', [...keyParams(key)]);
  }

  /** Adds tokens and cost to `key`; the consumption after. */
  async addUsage(key: CounterKey, usage: { inputTokens: number; outputTokens: number; costUsd: number }, nowMs: number): Promise<Consumption> {
    const nano = Math.round(usage.costUsd * NANO);
    const rows = await this.db.query<Row>(
      `${INSERT} ON CONFLICT (scope, subject, period, bucket_ms) DO UPDATE SET input_tokens = svc_budget_usage.input_tokens + excluded.input_tokens,
         output_tokens = svc_budget_usage.output_tokens + excluded.output_tokens, cost_nanousd = svc_budget_usage.cost_nanousd + excluded.cost_nanousd,
         updated_ms = excluded.updated_ms ${RETURNING}`,
      [...keyParams(key), 0, usage.inputTokens, usage.outputTokens, nano, nowMs],
    );
    return toConsumption(rows[0]);
  }

  async read(key: CounterKey, client: SqlClient = this.db): Promise<Consumption> {
    const [row] = await client.query<Row>(
      'SELECT runs, input_tokens, output_tokens, cost_nanousd FROM svc_budget_usage WHERE scope = $1 AND subject = $2 AND period = $3 AND bucket_ms = $4',
      [...keyParams(key)],
    );
    return toConsumption(row);
  }

  /** Forgets buckets that ended before `beforeMs` (the longest window is a month). */
  async prune(beforeMs: number): Promise<void> {
    await this.db.execute('DELETE FROM svc_budget_usage WHERE bucket_ms < $1', [beforeMs]);
  }
}
