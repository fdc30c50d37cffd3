/**
 * @module schedules/scheduler
 * The loop every runtime runs (unless SCHEDULES_ENABLED=false): twice a second it reads the
 * schedules whose next occurrence has come and handles each one it wins. Winning is moving the
 * schedule's next_fire_ms on with a compare-and-set, so of the runtimes sharing a database
 * exactly one handles an occurrence; the occurrence row (unique per schedule and time) is the
 * second guard.
 *
 * Missed occurrences (every runtime was down): only the most recent one may still run, if it is
 * at most SCHEDULE_CATCHUP_SECONDS old (an occurrence found within 30 s of its time is on time
 * whatever that says); every older one, and that one when it is older, is recorded as
 * `skipped` (the 100 most recent of them), so the history says what did not run. An occurrence
 * a runtime took and died before starting its run is recorded as `failed` a minute later (not
 * fired again: another runtime cannot know whether the run started).
 */
import type { Logger } from '../util/logger.js';
import { parseCron } from './cron.js';
import type { StoredSchedule } from './schedule-store.js';
import type { ScheduleService } from './service.js';

export const TICK_MS = 500;
/** Lateness any handled occurrence is allowed (a slow tick, a busy database): it still runs. */
export const ON_TIME_MS = 30_000;
/** Skipped occurrences recorded per catch-up; older ones are only counted in the log. */
const MAX_SKIPPED_RECORDED = 100;
const BATCH = 50;
/** How often a runtime looks for occurrences left `starting` by a runtime that died, and how old they must be. */
const SWEEP_EVERY_MS = 30_000;
const ABANDONED_AFTER_MS = 60_000;

export interface SchedulerOptions {
  service: ScheduleService;
  log: Logger;
  catchupMs: number;
  tickMs?: number;
}

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private tick: Promise<void> | undefined;
  private sweptAt = 0;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    const loop = (): void => {
      this.timer = setTimeout(() => {
        this.tick = this.runTick().finally(() => {
          this.tick = undefined;
          if (this.running) loop();
        });
      }, this.options.tickMs ?? TICK_MS);
      this.timer.unref();
    };
    loop();
  }

  /** Stops firing; waits for the tick in progress (its runs are started, not waited for). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.tick;
  }

  /** One pass over the due schedules; exported for tests that drive time themselves. */
  async runTick(now = Date.now()): Promise<void> {
    try {
      const due = await this.options.service.store.due(now, BATCH);
      for (const schedule of due) {
        if (!this.running && this.timer !== undefined) return;
        await this.handle(schedule, now).catch((error: unknown) => this.options.log.warn(`schedule ${schedule.id}: ${(error as Error).message}`));
      }
      if (now - this.sweptAt >= SWEEP_EVERY_MS) {
        this.sweptAt = now;
        const failed = await this.options.service.store.failAbandoned(now - ABANDONED_AFTER_MS);
        if (failed > 0) this.options.log.warn(`scheduler: ${failed} occurrence(s) were taken by a runtime that stopped before starting their runs; recorded as failed`);
      }
    } catch (error) {
      this.options.log.warn(`scheduler: ${(error as Error).message}`);
    }
  }

  private async handle(schedule: StoredSchedule, now: number): Promise<void> {
    const { service, log } = this.options;
    const from = schedule.nextFireMs!;
    const cron = parseCron(schedule.cron, schedule.timezone);
    const following = cron.next(from);
    let passed: number[];
    if (following === undefined || following > now) {
      // The usual case: one occurrence has come.
      if (!(await service.store.advance(schedule.id, from, following ?? null))) return;
      passed = [from];
    } else {
      // Several have: the runtimes were down (or this one stalled).
      if (!(await service.store.advance(schedule.id, from, cron.next(now) ?? null))) return;
      passed = cron
        .previous(MAX_SKIPPED_RECORDED + 1, now + 1)
        .filter((o) => o >= from)
        .toReversed();
      if (passed.length === 0) passed = [from];
    }
    const latest = passed.at(-1)!;
    const older = passed.slice(0, -1);
    const late = now - latest > Math.max(this.options.catchupMs, ON_TIME_MS);
    const skipped = late ? passed : older;
    for (const occurrenceMs of skipped) {
      await service.store.claimOccurrence({ scheduleId: schedule.id, trigger: 'cron', occurrenceMs, state: 'skipped', error: 'missed while no runtime was up', firedBy: 'scheduler' });
    }
    if (skipped.length > 0) {
      log.warn(`schedule ${schedule.id}: skipped ${skipped.length === passed.length && passed.length > MAX_SKIPPED_RECORDED ? 'over ' : ''}${skipped.length} missed occurrence(s) since ${new Date(from).toISOString()}`);
    }
    if (!late) await service.fire(schedule, 'cron', latest);
  }
}
