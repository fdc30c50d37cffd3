/**
 * @module settings/traces
 * The traces area: how long what every run did is kept.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `TRACE_RETENTION_DAYS` | 30 | traces of runs started longer ago are removed in the background (hourly); 0 keeps them forever |
 */
import { z } from 'zod';
import { wholeNumber } from './fields.js';

export const DEFAULT_TRACE_RETENTION_DAYS = 30;

export interface TraceSettings {
  /** Days a run's trace is kept; 0: forever. */
  traceRetentionDays: number;
}

export const traceSettingsSchema = z
  .object({ TRACE_RETENTION_DAYS: wholeNumber({ min: 0, max: 36500, default: DEFAULT_TRACE_RETENTION_DAYS }) })
  .transform((env): TraceSettings => ({ traceRetentionDays: env.TRACE_RETENTION_DAYS }));
