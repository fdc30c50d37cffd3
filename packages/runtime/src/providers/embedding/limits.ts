/**
 * @module providers/embedding/limits
 * How much an embedder may ask of its endpoint: inputs per request, requests in flight,
 * requests and tokens per minute, retries. Options win over the EMBEDDING_* environment
 * variables (read by settings/embedding), which win over the provider's defaults; a malformed
 * value fails naming itself.
 */
import { ConfigurationError } from '../../errors.js';
import { readEmbeddingLimitSettings } from '../../settings/embedding.js';

export interface EmbeddingLimitOptions {
  /** Inputs per request. */
  batchSize?: number | undefined;
  /** Requests in flight at once, shared by everything in the process on the same endpoint and model. */
  maxConcurrency?: number | undefined;
  /** Requests started per minute; 0 or unset: no limit of our own (the provider's, when it announces one). */
  requestsPerMinute?: number | undefined;
  /** Input tokens per minute (estimated, then as reported); 0 or unset: as for requests. */
  tokensPerMinute?: number | undefined;
  /** Retries of a batch after its first attempt. */
  maxRetries?: number | undefined;
  /** First backoff delay when the provider gives no Retry-After; doubled per retry, with jitter. */
  retryBaseDelayMs?: number | undefined;
  /** Upper bound of any wait between attempts, Retry-After included. */
  maxRetryDelayMs?: number | undefined;
  /** Where the EMBEDDING_* settings are read for options not given here; default process.env. */
  env?: Record<string, string | undefined> | undefined;
}

export interface EmbeddingLimits {
  batchSize: number;
  maxConcurrency: number;
  requestsPerMinute: number | undefined;
  tokensPerMinute: number | undefined;
  maxRetries: number;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
}

/** What each provider gets unless told otherwise. */
export const PROVIDER_DEFAULTS: Readonly<Record<string, Pick<EmbeddingLimits, 'batchSize' | 'maxConcurrency'>>> = {
  // agno's batch size; a few requests in flight stay well inside every OpenAI tier.
  openai: { batchSize: 100, maxConcurrency: 4 },
  // A local server works through its queue anyway; two keep it busy without piling up.
  ollama: { batchSize: 100, maxConcurrency: 2 },
};

export const DEFAULT_EMBEDDING_RETRIES = 5;
const DEFAULT_RETRY_BASE_MS = 500;
/** Also the longest pause an announced rate-limit reset imposes (limiter.ts). */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** The EMBEDDING_* environment variables that are set (settings/embedding); a malformed one fails naming itself. */
export function embeddingLimitsFromEnvironment(env: Record<string, string | undefined> = process.env): EmbeddingLimitOptions {
  return readEmbeddingLimitSettings(env);
}

/** Options over EMBEDDING_* settings over the provider's defaults. */
export function resolveEmbeddingLimits(provider: string, options: EmbeddingLimitOptions): EmbeddingLimits {
  const env = embeddingLimitsFromEnvironment(options.env ?? process.env);
  const defaults = PROVIDER_DEFAULTS[provider] ?? { batchSize: 100, maxConcurrency: 2 };
  const pick = <K extends keyof EmbeddingLimitOptions>(key: K) => options[key] ?? env[key];
  const check = (name: string, value: number | undefined, min: number, max: number): number | undefined => {
    if (value === undefined) return undefined;
    if (!Number.isInteger(value) || value < min || value > max) throw new ConfigurationError(`${provider} embedder: ${name} must be a whole number from ${min} to ${max}, got ${value}`);
    return value;
  };
  const perMinute = (name: string, value: number | undefined) => check(name, value, 0, 1_000_000_000) || undefined;
  return {
    batchSize: check('batchSize', pick('batchSize'), 1, 2048) ?? defaults.batchSize,
    maxConcurrency: check('maxConcurrency', pick('maxConcurrency'), 1, 64) ?? defaults.maxConcurrency,
    requestsPerMinute: perMinute('requestsPerMinute', pick('requestsPerMinute')),
    tokensPerMinute: perMinute('tokensPerMinute', pick('tokensPerMinute')),
    maxRetries: check('maxRetries', pick('maxRetries'), 0, 20) ?? DEFAULT_EMBEDDING_RETRIES,
    retryBaseDelayMs: check('retryBaseDelayMs', options.retryBaseDelayMs, 0, 600_000) ?? DEFAULT_RETRY_BASE_MS,
    maxRetryDelayMs: check('maxRetryDelayMs', options.maxRetryDelayMs, 0, 3_600_000) ?? DEFAULT_MAX_RETRY_DELAY_MS,
  };
}
