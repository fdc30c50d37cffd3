/**
 * @module settings/pricing
 * The model prices area: an optional price table that puts a USD cost on token usage
 * (model/pricing's `costOf`). Unset, nothing is priced and no cost is reported, rather than a
 * made-up one: prices change and differ per account, so the runtime ships none.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `MODEL_PRICES_JSON` | none (no costs) | a JSON object from model name (as sent to the provider, e.g. `gpt-4o-mini`) to `{"input", "output", "cached_input"?, "cache_write_input"?}`, each in USD per million tokens; `cached_input` prices prompt-cache reads and `cache_write_input` Anthropic's cache writes, both `input` when left out |
 *
 * JSON in the variable rather than a file path: a price table is a few lines, and a variable
 * travels with the rest of a deployment's environment (`MODEL_PRICES_JSON="$(cat prices.json)"`
 * serves a file). A value that is not such an object stops the start, naming the model and field.
 */
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { text } from './fields.js';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Prompt tokens read from the cache; `input` when undefined. */
  cachedInput?: number | undefined;
  /** Prompt tokens written to the cache; `input` when undefined. */
  cacheWriteInput?: number | undefined;
}

/** Model name -> its price. */
export type ModelPrices = Readonly<Record<string, ModelPrice>>;

const usdPerMillion = z.number().finite().min(0);

const priceEntry = z.strictObject({
  input: usdPerMillion,
  output: usdPerMillion,
  cached_input: usdPerMillion.optional(),
  cache_write_input: usdPerMillion.optional(),
});

const priceTable = z.record(z.string().min(1), priceEntry);

const SHAPE = 'a JSON object of model -> {"input", "output", "cached_input"?, "cache_write_input"?} in USD per million tokens';

export const pricingSchema = z
  .object({
    MODEL_PRICES_JSON: text().transform((value, ctx): ModelPrices | undefined => {
      if (value === undefined) return undefined;
      let json: unknown;
      try {
        json = JSON.parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `must be ${SHAPE}; it is not JSON (${(error as Error).message})` });
        return z.NEVER;
      }
      const parsed = priceTable.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const [model, ...field] = issue.path.map(String);
        const where = model === undefined ? '' : `for ${JSON.stringify(model)}${field.length > 0 ? `, ${field.join('.')}` : ''}: `;
        ctx.addIssue({ code: 'custom', message: `must be ${SHAPE}; ${where}${issue.message}` });
        return z.NEVER;
      }
      // A prototype-less object, so a model named `constructor` or `__proto__` is just a name.
      const prices: Record<string, ModelPrice> = Object.create(null) as Record<string, ModelPrice>;
      for (const [model, entry] of Object.entries(parsed.data)) {
        const price: ModelPrice = { input: entry.input, output: entry.output };
        if (entry.cached_input !== undefined) price.cachedInput = entry.cached_input;
        if (entry.cache_write_input !== undefined) price.cacheWriteInput = entry.cache_write_input;
        prices[model] = price;
      }
      return prices;
    }),
  })
  .transform((env) => env.MODEL_PRICES_JSON);

/** The price table MODEL_PRICES_JSON holds; undefined when it is unset. */
export function readModelPrices(env: Readonly<Environment>): ModelPrices | undefined {
  return readEnvironment(pricingSchema, env);
}
