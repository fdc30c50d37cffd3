/**
 * @module settings/pricing.test
 * MODEL_PRICES_JSON: unset prices nothing, a table is read with its optional cache prices, and
 * a malformed one is refused naming the model and the field.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { readModelPrices } from './pricing.js';

const SHAPE = 'MODEL_PRICES_JSON must be a JSON object of model -> {"input", "output", "cached_input"?, "cache_write_input"?} in USD per million tokens';

/** Reading `value`, deferred for toThrow. */
function refusal(value: string): () => unknown {
  return () => readModelPrices({ MODEL_PRICES_JSON: value });
}

describe('readModelPrices', () => {
  it('prices nothing when unset or blank', () => {
    expect(readModelPrices({})).toBeUndefined();
    expect(readModelPrices({ MODEL_PRICES_JSON: '  ' })).toBeUndefined();
  });

  it('reads each model with its optional cache prices, USD per million tokens', () => {
    const prices = readModelPrices({
      MODEL_PRICES_JSON: JSON.stringify({
        'gpt-4o-mini': { input: 0.15, output: 0.6, cached_input: 0.075 },
        'claude-sonnet-4-5': { input: 3, output: 15, cached_input: 0.3, cache_write_input: 3.75 },
        'llama3.2': { input: 0, output: 0 },
      }),
    });
    expect(prices).toEqual({
      'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
      'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 },
      'llama3.2': { input: 0, output: 0 },
    });
  });

  it('takes a model named like an Object method as just a name', () => {
    const prices = readModelPrices({ MODEL_PRICES_JSON: '{"constructor": {"input": 1, "output": 2}}' });
    expect(prices && Object.keys(prices)).toEqual(['constructor']);
    expect(prices?.['toString']).toBeUndefined();
  });

  it('refuses what is not a price table, naming the model and the field', () => {
    expect(refusal('gpt-4o: 0.15')).toThrow(ConfigurationError);
    expect(refusal('gpt-4o: 0.15')).toThrow(`${SHAPE}; it is not JSON (`);
    expect(refusal('[]')).toThrow(new ConfigurationError(`${SHAPE}; Invalid input: expected record, received array`));
    expect(refusal('{"gpt-4o": {"input": -1, "output": 10}}')).toThrow(new ConfigurationError(`${SHAPE}; for "gpt-4o", input: Too small: expected number to be >=0`));
    expect(refusal('{"gpt-4o": {"input": 2.5}}')).toThrow(new ConfigurationError(`${SHAPE}; for "gpt-4o", output: Invalid input: expected number, received undefined`));
    expect(refusal('{"gpt-4o": {"input": "2.5", "output": 10}}')).toThrow(new ConfigurationError(`${SHAPE}; for "gpt-4o", input: Invalid input: expected number, received string`));
    // A misspelt key would otherwise price cache reads at the full input rate without a word.
    expect(refusal('{"gpt-4o": {"input": 2.5, "output": 10, "cached": 1.25}}')).toThrow(new ConfigurationError(`${SHAPE}; for "gpt-4o": Unrecognized key: "cached"`));
  });
});
