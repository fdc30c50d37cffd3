/**
 * @module model/pricing
 * What a model call cost, in USD, from the Usage the provider reported and a price table
 * (settings/pricing, MODEL_PRICES_JSON). Pure: the caller decides where a cost is shown or kept.
 */
import type { ModelPrices } from '../settings/pricing.js';
import type { Usage } from './model.js';

const PER_MILLION = 1_000_000;

/**
 * The cost of `usage` at `model`'s price, or undefined when the table does not price that
 * model (an unknown cost, not a free call). The model is looked up by the exact name sent to
 * the provider. `inputTokens` includes the cached ones (see Usage), so cache reads and writes
 * are taken out of it and priced at their own rates; a count the provider did not report costs
 * as uncached input.
 */
export function costOf(usage: Usage, model: string, prices: ModelPrices): number | undefined {
  if (!Object.hasOwn(prices, model)) return undefined;
  const price = prices[model]!;
  const cacheReads = usage.cachedInputTokens ?? 0;
  const cacheWrites = usage.cacheWriteInputTokens ?? 0;
  // Never negative, should a provider report more cached tokens than prompt tokens.
  const uncached = Math.max(0, usage.inputTokens - cacheReads - cacheWrites);
  const usd =
    uncached * price.input +
    cacheReads * (price.cachedInput ?? price.input) +
    cacheWrites * (price.cacheWriteInput ?? price.input) +
    usage.outputTokens * price.output;
  return usd / PER_MILLION;
}
