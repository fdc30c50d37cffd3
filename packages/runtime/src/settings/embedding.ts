/**
 * @module settings/embedding
 * The embedding limits area: how much an embedder may ask of its endpoint, read when the
 * embedder is built (providers/embedding/limits), for each limit its code options leave out.
 * Unset means the provider's default; a malformed value fails naming itself.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `EMBEDDING_BATCH_SIZE` | the provider's (100) | inputs per request, 1 to 2048 |
 * | `EMBEDDING_MAX_CONCURRENCY` | the provider's (4 for OpenAI, 2 for Ollama) | requests in flight on one endpoint and model, 1 to 64 |
 * | `EMBEDDING_REQUESTS_PER_MINUTE` | none | requests started per minute, 0 to 10000000; 0: no limit of our own |
 * | `EMBEDDING_TOKENS_PER_MINUTE` | none | input tokens per minute, 0 to 1000000000; 0: as for requests |
 * | `EMBEDDING_MAX_RETRIES` | 5 | retries of a batch after its first attempt, 0 to 20 |
 */
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { wholeNumber } from './fields.js';

/** The limits the environment sets; a limit left unset is absent. */
export interface EmbeddingLimitSettings {
  batchSize?: number;
  maxConcurrency?: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  maxRetries?: number;
}

// In the order the hand-written reader checked them, so the first bad value is the one reported.
export const embeddingLimitSettingsSchema = z
  .object({
    EMBEDDING_BATCH_SIZE: wholeNumber({ min: 1, max: 2048 }),
    EMBEDDING_MAX_CONCURRENCY: wholeNumber({ min: 1, max: 64 }),
    EMBEDDING_REQUESTS_PER_MINUTE: wholeNumber({ min: 0, max: 10_000_000 }),
    EMBEDDING_TOKENS_PER_MINUTE: wholeNumber({ min: 0, max: 1_000_000_000 }),
    EMBEDDING_MAX_RETRIES: wholeNumber({ min: 0, max: 20 }),
  })
  .transform((env): EmbeddingLimitSettings => {
    const set: EmbeddingLimitSettings = {
      batchSize: env.EMBEDDING_BATCH_SIZE,
      maxConcurrency: env.EMBEDDING_MAX_CONCURRENCY,
      requestsPerMinute: env.EMBEDDING_REQUESTS_PER_MINUTE,
      tokensPerMinute: env.EMBEDDING_TOKENS_PER_MINUTE,
      maxRetries: env.EMBEDDING_MAX_RETRIES,
    };
    return Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined));
  });

/** The EMBEDDING_* limits set in `env`; throws ConfigurationError on a malformed value. */
export function readEmbeddingLimitSettings(env: Readonly<Environment>): EmbeddingLimitSettings {
  return readEnvironment(embeddingLimitSettingsSchema, env);
}
