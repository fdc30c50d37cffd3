/**
 * @module schedules/cron
 * A schedule's cron expression in its time zone, through croner (see docs/ARCHITECTURE.md for
 * why that library): five fields (minute precision) or six (a leading seconds field), an IANA
 * time zone, daylight-saving gaps and repeats handled by the library. Bad input is a 400 whose
 * message names what is wrong.
 */
import { Cron } from 'croner';
import { badRequest } from '../errors.js';

export interface CronSchedule {
  readonly expression: string;
  readonly timezone: string;
  /** The first occurrence strictly after `afterMs`, in epoch ms; undefined when none is left. */
  next(afterMs: number): number | undefined;
  /** Up to `n` occurrences strictly before `beforeMs`, most recent first. */
  previous(n: number, beforeMs: number): number[];
}

/** Whether `timezone` is an IANA zone name this runtime's Intl knows. */
export function checkTimezone(timezone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone && timezone;
  } catch {
    throw badRequest(`Unknown time zone "${timezone}": give an IANA zone name such as "UTC", "Europe/Paris" or "America/New_York"`);
  }
}

export function parseCron(expression: string, timezone: string): CronSchedule {
  checkTimezone(timezone);
  let cron: Cron;
  try {
    cron = new Cron(expression.trim(), { timezone, mode: '5-or-6-parts', paused: true });
  } catch (error) {
    const why = (error as Error).message.replace(/^Cron\w*:\s*/, '');
    throw badRequest(`Invalid cron expression "${expression}": ${why}. Use five fields (minute hour day-of-month month day-of-week) or six with a leading seconds field`);
  }
  if (cron.nextRun() === null) throw badRequest(`The cron expression "${expression}" never fires (no date matches it)`);
  return {
    expression: expression.trim(),
    timezone,
    next: (afterMs) => cron.nextRun(new Date(afterMs))?.getTime() ?? undefined,
    previous: (n, beforeMs) => cron.previousRuns(n, new Date(beforeMs)).map((d) => d.getTime()),
  };
}
