/**
 * @module providers/usage
 * Builds a Usage from the counts an adapter read off its wire. The cache fields are left out
 * when the provider did not report them: an absent field means "not reported", which a price
 * or a trace must not take for "nothing was cached" (see model/model's Usage).
 */
import type { Usage } from '../model/model.js';

export interface UsageCounts {
  /** Every prompt token, cached ones included. */
  input: number;
  output: number;
  /** The provider's own total, when it gives one. */
  total?: number | undefined;
  cachedInput?: number | undefined;
  cacheWriteInput?: number | undefined;
}

export function usageFrom(counts: UsageCounts): Usage {
  const usage: Usage = { inputTokens: counts.input, outputTokens: counts.output, totalTokens: counts.total ?? counts.input + counts.output };
  if (counts.cachedInput !== undefined) usage.cachedInputTokens = counts.cachedInput;
  if (counts.cacheWriteInput !== undefined) usage.cacheWriteInputTokens = counts.cacheWriteInput;
  return usage;
}

/** A token count off the wire: a finite number from 0 up, else undefined (absent, null or not a count). */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
