/**
 * @module settings/schedules
 * The schedules area: whether this runtime fires schedules, and what it does with occurrences
 * missed while no runtime was up.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `SCHEDULES_ENABLED` | true | false: this runtime serves the /schedules routes but fires no occurrence (another runtime on the database does) |
 * | `SCHEDULE_CATCHUP_SECONDS` | 300 | after downtime, the most recent missed occurrence still runs if it is at most this old; every older one (and that one, if older) is recorded as `skipped` (0 to 86400; 0 skips every missed one) |
 */
import { z } from 'zod';
import { flag, seconds } from './fields.js';

export interface ScheduleSettings {
  schedulesEnabled: boolean;
  scheduleCatchupMs: number;
}

export const scheduleSettingsSchema = z
  .object({ SCHEDULES_ENABLED: flag(true), SCHEDULE_CATCHUP_SECONDS: seconds({ min: 0, max: 86_400, default: 300 }) })
  .transform((env): ScheduleSettings => ({ schedulesEnabled: env.SCHEDULES_ENABLED, scheduleCatchupMs: env.SCHEDULE_CATCHUP_SECONDS }));
