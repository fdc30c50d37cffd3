/**
 * @module budgets/windows
 * Calendar windows in UTC: the bucket a moment falls in, and when that bucket ends.
 */
import type { BudgetWindow } from './types.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The start of the window holding `nowMs`. */
export function bucketStart(window: BudgetWindow, nowMs: number): number {
  if (window === 'hour') return Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  if (window === 'day') return Math.floor(nowMs / DAY_MS) * DAY_MS;
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The end of the window that starts at `startMs` (the next one's start). */
export function bucketEnd(window: BudgetWindow, startMs: number): number {
  if (window === 'hour') return startMs + HOUR_MS;
  if (window === 'day') return startMs + DAY_MS;
  const d = new Date(startMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Whole seconds from `nowMs` until the window holding it ends (at least 1). */
export function secondsUntilReset(window: BudgetWindow, nowMs: number): number {
  return Math.max(1, Math.ceil((bucketEnd(window, bucketStart(window, nowMs)) - nowMs) / 1000));
}
