/**
 * The list filters of `svc traces`: each option's parser (a bad value is commander's usage
 * error, exit 2, before any network call) and the GET /traces query they make.
 */
import type { TraceQuery } from '../../http/traces.js';
import { invalidValue } from '../options.js';

export const RUN_STATUSES = ['COMPLETED', 'ERROR', 'CANCELLED', 'PAUSED'] as const;
/** The API's page bound (GET /traces answers 400 above it). */
export const MAX_LIMIT = 100;

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export interface ListFilters {
  agent?: string;
  team?: string;
  workflow?: string;
  session?: string;
  user?: string;
  status?: string;
  since?: number;
  minDuration?: number;
  limit?: number;
  cursor?: string;
}

/** The options that narrow the list; naming one together with a run id is a usage error. */
export const LIST_ONLY: readonly (keyof ListFilters)[] = ['agent', 'team', 'workflow', 'session', 'user', 'status', 'since', 'minDuration', 'limit', 'cursor'];

/**
 * `--since`: a duration back from `now` (`90s`, `30m`, `1h`, `2d`, `1w`) or an ISO time
 * (`2026-01-31`, `2026-01-31T12:00:00Z`); epoch ms. Only ISO-looking text is handed to
 * Date.parse, which would otherwise read `1` as the year 2001.
 */
export function parseSince(value: string, now = Date.now()): number {
  const duration = /^(\d{1,9})([smhdw])$/.exec(value.trim());
  if (duration) {
    const amount = Number(duration[1]) * (UNIT_MS[duration[2] ?? ''] ?? 0);
    if (amount > 0 && now - amount >= 0) return now - amount;
  } else if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    const ms = Date.parse(value.trim());
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  throw invalidValue(`Invalid --since: ${value}`, "Give a duration back from now ('30m', '1h', '2d', '1w') or an ISO time ('2026-01-31T12:00:00Z').");
}

export function parseLimit(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw invalidValue(`Invalid --limit: ${value}`, `Give a whole number from 1 to ${MAX_LIMIT}.`);
  return n;
}

export function parseMinDuration(value: string): number {
  const n = /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw invalidValue(`Invalid --min-duration: ${value}`, 'Give a whole number of milliseconds, such as 500.');
  return n;
}

/** Run statuses are upper case in the API; the flag takes any case. */
export function parseStatus(value: string): string {
  const upper = value.toUpperCase();
  if (!(RUN_STATUSES as readonly string[]).includes(upper)) throw invalidValue(`Invalid --status: ${value}`, `Use one of ${RUN_STATUSES.map((s) => s.toLowerCase()).join(', ')}.`);
  return upper;
}

/** Ids are the runtime's own (slugs, UUIDs); an empty one would silently drop the filter. */
export function parseId(flag: string): (value: string) => string {
  return (value) => {
    if (value.trim() === '') throw invalidValue(`Invalid ${flag}: the value is empty`, `Give the id to filter by, such as ${flag} my-id.`);
    return value;
  };
}

/** The options given that only the list takes (to refuse them next to a run id). */
const flag = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export function listOnlyGiven(opts: ListFilters): string[] {
  return LIST_ONLY.filter((k) => opts[k] !== undefined).map(flag);
}

export function traceQuery(opts: ListFilters): TraceQuery {
  const query: TraceQuery = {};
  if (opts.agent !== undefined) query.agent_id = opts.agent;
  if (opts.team !== undefined) query.team_id = opts.team;
  if (opts.workflow !== undefined) query.workflow_id = opts.workflow;
  if (opts.session !== undefined) query.session_id = opts.session;
  if (opts.user !== undefined) query.user_id = opts.user;
  if (opts.status !== undefined) query.status = opts.status;
  if (opts.since !== undefined) query.from = opts.since;
  if (opts.minDuration !== undefined) query.min_duration_ms = opts.minDuration;
  if (opts.limit !== undefined) query.limit = opts.limit;
  if (opts.cursor !== undefined) query.cursor = opts.cursor;
  return query;
}
