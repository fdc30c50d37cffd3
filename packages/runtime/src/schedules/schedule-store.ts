/**
 * @module schedules/schedule-store
 * The schedule rows and their occurrences. Two guards keep an occurrence from firing twice
 * across runtimes: the runtime that moves a schedule's next_fire_ms forward (a compare-and-set)
 * is the one that handles the occurrences it passed, and each occurrence is a row unique per
 * (schedule, trigger, time), inserted before its run starts.
 */
import type { Db, SqlValue } from '../storage/db.js';
import type { Occurrence, OccurrenceState, OccurrenceTrigger, Schedule, ScheduleInput, TargetKind } from './types.js';

interface Row {
  schedule_id: string;
  name: string;
  cron: string;
  timezone: string;
  target_kind: string;
  target_id: string;
  input: string;
  webhook: string | null;
  enabled: number | string;
  user_id: string | null;
  tenant_id?: string | null;
  next_fire_ms: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

/** A schedule as the store holds it: times in epoch ms. */
export interface StoredSchedule {
  id: string;
  name: string;
  cron: string;
  timezone: string;
  targetKind: TargetKind;
  targetId: string;
  input: ScheduleInput;
  webhook: string | null;
  enabled: boolean;
  userId: string | null;
  /** The tenant that made it (auth/tenancy.ts); its runs are that tenant's. Null without tenancy. */
  tenantId?: string | null;
  nextFireMs: number | null;
  createdMs: number;
  updatedMs: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function fromRow(row: Row): StoredSchedule {
  return {
    id: row.schedule_id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    targetKind: row.target_kind as TargetKind,
    targetId: row.target_id,
    input: JSON.parse(row.input) as ScheduleInput,
    webhook: row.webhook,
    enabled: Number(row.enabled) === 1,
    userId: row.user_id,
    tenantId: row.tenant_id ?? null,
    nextFireMs: num(row.next_fire_ms),
    createdMs: Number(row.created_at),
    updatedMs: Number(row.updated_at),
  };
}

export function toSchedule(s: StoredSchedule): Schedule {
  return {
    schedule_id: s.id,
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    target: { kind: s.targetKind, id: s.targetId },
    input: s.input,
    webhook: s.webhook,
    enabled: s.enabled,
    user_id: s.userId,
    next_run_at: s.nextFireMs === null ? null : iso(s.nextFireMs),
    created_at: iso(s.createdMs),
    updated_at: iso(s.updatedMs),
  };
}

const COLUMNS = 'schedule_id, name, cron, timezone, target_kind, target_id, input, webhook, enabled, user_id, next_fire_ms, created_at, updated_at, tenant_id';

export class ScheduleStore {
  constructor(readonly db: Db) {}

  async insert(s: StoredSchedule): Promise<void> {
    await this.db.execute(`INSERT INTO svc_schedules (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, [
      s.id,
      s.name,
      s.cron,
      s.timezone,
      s.targetKind,
      s.targetId,
      JSON.stringify(s.input),
      s.webhook,
      s.enabled ? 1 : 0,
      s.userId,
      s.nextFireMs,
      s.createdMs,
      s.updatedMs,
      s.tenantId ?? null,
    ]);
  }

  /** Replaces the editable fields of `s` (all but id, user and creation time). */
  async update(s: StoredSchedule): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_schedules SET name = $1, cron = $2, timezone = $3, target_kind = $4, target_id = $5, input = $6, webhook = $7,
       enabled = $8, next_fire_ms = $9, updated_at = $10 WHERE schedule_id = $11`,
      [s.name, s.cron, s.timezone, s.targetKind, s.targetId, JSON.stringify(s.input), s.webhook, s.enabled ? 1 : 0, s.nextFireMs, s.updatedMs, s.id],
    );
    return changed === 1;
  }

  async get(id: string): Promise<StoredSchedule | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_schedules WHERE schedule_id = $1`, [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  /** Oldest first; only `userId`'s when given, only `tenantId`'s when given (the same WHERE: `limit` stays exact). */
  async list(userId: string | undefined, limit: number, tenantId?: string): Promise<StoredSchedule[]> {
    const params: SqlValue[] = [limit];
    const where: string[] = [];
    if (userId !== undefined) where.push(`user_id = $${params.push(userId)}`);
    if (tenantId !== undefined) where.push(`tenant_id = $${params.push(tenantId)}`);
    const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_schedules ${filter} ORDER BY created_at, schedule_id LIMIT $1`, params);
    return rows.map(fromRow);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.execute('DELETE FROM svc_schedules WHERE schedule_id = $1', [id])) === 1;
  }

  /** Enabled schedules whose next occurrence has come, soonest first. */
  async due(now: number, limit: number): Promise<StoredSchedule[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM svc_schedules WHERE enabled = 1 AND next_fire_ms IS NOT NULL AND next_fire_ms <= $1 ORDER BY next_fire_ms LIMIT $2`,
      [now, limit],
    );
    return rows.map(fromRow);
  }

  /** Moves the next occurrence from `from` to `to`; false when another runtime (or an edit) moved it first. */
  async advance(id: string, from: number, to: number | null): Promise<boolean> {
    const changed = await this.db.execute('UPDATE svc_schedules SET next_fire_ms = $1 WHERE schedule_id = $2 AND next_fire_ms = $3 AND enabled = 1', [to, id, from]);
    return changed === 1;
  }

  /** Records an occurrence; false when it was recorded already (by this or another runtime). */
  async claimOccurrence(o: { scheduleId: string; trigger: OccurrenceTrigger; occurrenceMs: number; state: OccurrenceState; error?: string; firedBy: string }): Promise<boolean> {
    const changed = await this.db.execute(
      `INSERT INTO svc_schedule_occurrences (schedule_id, trigger, occurrence_ms, state, error, fired_by, recorded_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (schedule_id, trigger, occurrence_ms) DO NOTHING`,
      [o.scheduleId, o.trigger, o.occurrenceMs, o.state, o.error ?? null, o.firedBy, Date.now()],
    );
    return changed === 1;
  }

  async settleOccurrence(scheduleId: string, trigger: OccurrenceTrigger, occurrenceMs: number, outcome: { state: OccurrenceState; runId?: string; error?: string }): Promise<void> {
    await this.db.execute('UPDATE svc_schedule_occurrences SET state = $1, run_id = $2, error = $3 WHERE schedule_id = $4 AND trigger = $5 AND occurrence_ms = $6', [
      outcome.state,
      outcome.runId ?? null,
      outcome.error ?? null,
      scheduleId,
      trigger,
      occurrenceMs,
    ]);
  }

  /** Occurrences left `starting` before `before` (their runtime died before the run started) become `failed`. */
  async failAbandoned(before: number): Promise<number> {
    return this.db.execute(
      "UPDATE svc_schedule_occurrences SET state = 'failed', error = 'the runtime firing it stopped before its run started' WHERE state = 'starting' AND recorded_ms < $1",
      [before],
    );
  }

  /** A schedule's occurrences, most recent first, with their runs' status now. */
  async occurrences(scheduleId: string, limit: number): Promise<Occurrence[]> {
    const rows = await this.db.query<{ trigger: OccurrenceTrigger; occurrence_ms: number | string; state: OccurrenceState; run_id: string | null; status: string | null; error: string | null; recorded_ms: number | string }>(
      `SELECT o.trigger, o.occurrence_ms, o.state, o.run_id, r.status, o.error, o.recorded_ms FROM svc_schedule_occurrences o
       LEFT JOIN svc_runs r ON r.run_id = o.run_id WHERE o.schedule_id = $1 ORDER BY o.occurrence_ms DESC, o.trigger LIMIT $2`,
      [scheduleId, limit],
    );
    return rows.map((r) => ({
      schedule_id: scheduleId,
      trigger: r.trigger,
      occurrence_at: iso(Number(r.occurrence_ms)),
      state: r.state,
      run_id: r.run_id,
      run_status: r.status,
      error: r.error,
      recorded_at: iso(Number(r.recorded_ms)),
    }));
  }
}
