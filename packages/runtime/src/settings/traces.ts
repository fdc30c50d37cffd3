/**
 * @module settings/traces
 * The traces area: how long what every run did is kept.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `TRACE_RETENTION_DAYS` | 30 | traces of runs started longer ago are removed in the background (hourly); 0 keeps them forever |
 * | `TRACES_ENABLED` | true | false records no spans (GET /traces then lists no new runs); for a deployment that exports nothing and wants no trace writes, and for measuring what tracing costs |
 */
import { z } from 'zod';
import { flag, wholeNumber } from './fields.js';

export const DEFAULT_TRACE_RETENTION_DAYS = 30;

export interface TraceSettings {
  /** Days a run's trace is kept; 0: forever. */
  traceRetentionDays: number;
  /** Whether runs record spans at all. */
  tracesEnabled: boolean;
}

export const traceSettingsSchema = z
  .object({ TRACE_RETENTION_DAYS: wholeNumber({ min: 0, max: 36500, default: DEFAULT_TRACE_RETENTION_DAYS }), TRACES_ENABLED: flag(true) })
  .transform((env): TraceSettings => ({ traceRetentionDays: env.TRACE_RETENTION_DAYS, tracesEnabled: env.TRACES_ENABLED }));
