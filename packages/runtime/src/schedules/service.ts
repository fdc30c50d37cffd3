/**
 * @module schedules/service
 * What the /schedules routes (and the scheduler) do: create, edit, list and delete schedules,
 * each checked before it is stored (the cron expression and time zone, the target hosted here
 * and runnable, the webhook allowed), and fire one occurrence: record it (once, across every
 * runtime), then start its run here, detached from any connection.
 */
import { timeOrderedId } from '../util/ids.js';
import { badRequest, RuntimeError } from '../errors.js';
import type { Runnable } from '../run/execution.js';
import type { Runner } from '../run/runner.js';
import type { Logger } from '../util/logger.js';
import type { Webhooks } from '../webhooks/webhooks.js';
import { parseCron } from './cron.js';
import { ScheduleStore, toSchedule, type StoredSchedule } from './schedule-store.js';
import type { Occurrence, OccurrenceTrigger, Schedule, ScheduleInput, TargetKind } from './types.js';

/** A draft whose expression, zone, target and webhook passed the checks. */
interface Checked {
  cron: ReturnType<typeof parseCron>;
  webhook: string | null;
}

export interface ScheduleDraft {
  name?: string | undefined;
  cron: string;
  timezone?: string | undefined;
  target: { kind: TargetKind; id: string };
  input: ScheduleInput;
  webhook?: string | null | undefined;
  enabled?: boolean | undefined;
}

export type SchedulePatch = Partial<ScheduleDraft>;

export interface FiredOccurrence {
  state: 'started' | 'failed';
  runId: string | undefined;
  error: string | undefined;
}

export interface ScheduleServiceOptions {
  store: ScheduleStore;
  runner: Runner;
  webhooks: Webhooks;
  /** The runnable component of that kind and id hosted here, if any. */
  target(kind: TargetKind, id: string): Runnable | undefined;
  log: Logger;
}

export class ScheduleService {
  readonly store: ScheduleStore;

  constructor(private readonly options: ScheduleServiceOptions) {
    this.store = options.store;
  }

  async create(draft: ScheduleDraft, userId: string | undefined, now = Date.now(), tenantId?: string): Promise<Schedule> {
    const checked = await this.check({ ...draft, timezone: draft.timezone ?? 'UTC' });
    const enabled = draft.enabled ?? true;
    const stored: StoredSchedule = {
      id: timeOrderedId(now),
      ...this.fields(draft, checked),
      name: draft.name ?? `${draft.target.kind} ${draft.target.id}`,
      enabled,
      userId: userId ?? null,
      tenantId: tenantId ?? null,
      nextFireMs: enabled ? (checked.cron.next(now) ?? null) : null,
      createdMs: now,
      updatedMs: now,
    };
    await this.store.insert(stored);
    return toSchedule(stored);
  }

  /**
   * Applies `patch`. A new expression or zone, or enabling, starts from the next occurrence after
   * now (occurrences while disabled are not caught up); disabling clears it.
   */
  async update(current: StoredSchedule, patch: SchedulePatch, now = Date.now()): Promise<Schedule> {
    const draft: ScheduleDraft = {
      name: patch.name ?? current.name,
      cron: patch.cron ?? current.cron,
      timezone: patch.timezone ?? current.timezone,
      target: patch.target ?? { kind: current.targetKind, id: current.targetId },
      input: patch.input ?? current.input,
      webhook: patch.webhook === undefined ? current.webhook : patch.webhook,
    };
    const checked = await this.check(draft, patch.webhook !== undefined);
    const enabled = patch.enabled ?? current.enabled;
    const timing = draft.cron !== current.cron || draft.timezone !== current.timezone || enabled !== current.enabled;
    const next: StoredSchedule = {
      ...current,
      ...this.fields(draft, checked),
      name: draft.name!,
      enabled,
      nextFireMs: !enabled ? null : timing || current.nextFireMs === null ? (checked.cron.next(now) ?? null) : current.nextFireMs,
      updatedMs: now,
    };
    if (!(await this.store.update(next))) throw new RuntimeError('NOT_FOUND', 'Schedule not found');
    return toSchedule(next);
  }

  async occurrences(scheduleId: string, limit: number): Promise<Occurrence[]> {
    return this.store.occurrences(scheduleId, limit);
  }

  /**
   * Fires one occurrence: records it, unless it was recorded already (then undefined: another
   * runtime fired it), and starts the run. A run that cannot start is recorded as failed.
   */
  async fire(schedule: StoredSchedule, trigger: OccurrenceTrigger, occurrenceMs: number): Promise<FiredOccurrence | undefined> {
    const { store, runner, webhooks, log } = this.options;
    if (!(await store.claimOccurrence({ scheduleId: schedule.id, trigger, occurrenceMs, state: 'starting', firedBy: runner.owner }))) return undefined;
    const component = this.options.target(schedule.targetKind, schedule.targetId);
    let outcome: FiredOccurrence;
    if (!component) {
      outcome = { state: 'failed', runId: undefined, error: `no runnable ${schedule.targetKind} '${schedule.targetId}' is hosted by this runtime` };
    } else {
      try {
        const run = await runner.start({ component, message: schedule.input.message, sessionId: schedule.input.session_id, userId: schedule.userId ?? undefined,
          // The run belongs to the schedule's tenant, as if its maker had started it.
          ...(schedule.tenantId ? { tenantId: schedule.tenantId } : {}) });
        for (const url of [schedule.webhook, component.webhook]) if (url) await webhooks.register(run.runId, url);
        void run.done.then(() => webhooks.nudge());
        outcome = { state: 'started', runId: run.runId, error: undefined };
      } catch (error) {
        outcome = { state: 'failed', runId: undefined, error: (error as Error).message };
      }
    }
    if (outcome.error) log.warn(`schedule ${schedule.id}: the occurrence at ${new Date(occurrenceMs).toISOString()} did not start: ${outcome.error}`);
    await store.settleOccurrence(schedule.id, trigger, occurrenceMs, {
      state: outcome.state,
      ...(outcome.runId ? { runId: outcome.runId } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    return outcome;
  }

  /** The expression, zone, target and webhook of a draft, each refused with a 4xx naming it. */
  /** The stored fields a checked draft sets, alike for a new schedule and an edit. */
  private fields(draft: ScheduleDraft, checked: Checked): Pick<StoredSchedule, 'cron' | 'timezone' | 'targetKind' | 'targetId' | 'input' | 'webhook'> {
    return {
      cron: checked.cron.expression,
      timezone: checked.cron.timezone,
      targetKind: draft.target.kind,
      targetId: draft.target.id,
      input: draft.input,
      webhook: checked.webhook,
    };
  }

  private async check(draft: ScheduleDraft, checkWebhook = true): Promise<Checked> {
    const cron = parseCron(draft.cron, draft.timezone ?? 'UTC');
    if (!this.options.target(draft.target.kind, draft.target.id)) {
      throw badRequest(`Unknown target: no runnable ${draft.target.kind} with id '${draft.target.id}' is hosted by this runtime`);
    }
    const webhook = draft.webhook ? (checkWebhook ? await this.options.webhooks.check(draft.webhook) : draft.webhook) : null;
    return { cron, webhook };
  }
}
