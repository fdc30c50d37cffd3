/**
 * costOf: uncached input, cache reads, cache writes and output each at their own price per
 * million tokens; undefined (unknown), never 0, for a model the table does not price.
 */
import { describe, expect, it } from 'vitest';
import type { ModelPrices } from '../settings/pricing.js';
import { costOf } from './pricing.js';

const prices: ModelPrices = {
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 },
  'no-cache-price': { input: 2, output: 8 },
  'llama3.2': { input: 0, output: 0 },
};

// Sums of products of decimals are not exact in binary; 15 digits is far below a cent's fraction.
const DIGITS = 15;

describe('costOf', () => {
  it('prices OpenAI cache reads apart from the rest of the prompt', () => {
    // 86 uncached x 0.15 + 1920 cached x 0.075 + 6 out x 0.6 = 160.5 USD per million
    const usage = { inputTokens: 2006, outputTokens: 6, totalTokens: 2012, cachedInputTokens: 1920 };
    expect(costOf(usage, 'gpt-4o-mini', prices)).toBeCloseTo(160.5 / 1e6, DIGITS);
  });

  it('prices Anthropic cache reads and cache writes at their own rates', () => {
    // 21 x 3 + 2014 x 0.3 + 58 x 15 = 1537.2
    const read = { inputTokens: 2035, outputTokens: 58, totalTokens: 2093, cachedInputTokens: 2014, cacheWriteInputTokens: 0 };
    expect(costOf(read, 'claude-sonnet-4-5', prices)).toBeCloseTo(1537.2 / 1e6, DIGITS);
    // 12 x 3 + 1536 x 3.75 + 15 x 15 = 6021
    const written = { inputTokens: 1548, outputTokens: 15, totalTokens: 1563, cachedInputTokens: 0, cacheWriteInputTokens: 1536 };
    expect(costOf(written, 'claude-sonnet-4-5', prices)).toBeCloseTo(6021 / 1e6, DIGITS);
  });

  it('prices cached tokens as input when the table gives no cache price, and unreported ones as input', () => {
    const usage = { inputTokens: 1000, outputTokens: 100, totalTokens: 1100, cachedInputTokens: 800, cacheWriteInputTokens: 100 };
    expect(costOf(usage, 'no-cache-price', prices)).toBeCloseTo((1000 * 2 + 100 * 8) / 1e6, DIGITS);
    expect(costOf({ inputTokens: 1000, outputTokens: 100, totalTokens: 1100 }, 'gpt-4o-mini', prices)).toBeCloseTo((1000 * 0.15 + 100 * 0.6) / 1e6, DIGITS);
  });

  it('never counts negative uncached input when a provider reports more cached tokens than prompt tokens', () => {
    const usage = { inputTokens: 100, outputTokens: 0, totalTokens: 100, cachedInputTokens: 150 };
    expect(costOf(usage, 'gpt-4o-mini', prices)).toBeCloseTo((150 * 0.075) / 1e6, DIGITS);
  });

  it('says 0 for a model priced at 0, and undefined for one the table does not price', () => {
    const usage = { inputTokens: 26, outputTokens: 7, totalTokens: 33 };
    expect(costOf(usage, 'llama3.2', prices)).toBe(0);
    expect(costOf(usage, 'gpt-4o', prices)).toBeUndefined();
    expect(costOf(usage, 'GPT-4O-MINI', prices)).toBeUndefined();
    expect(costOf(usage, 'constructor', prices)).toBeUndefined();
    expect(costOf(usage, 'toString', {})).toBeUndefined();
  });
});
