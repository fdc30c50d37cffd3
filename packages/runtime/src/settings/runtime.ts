/**
 * @module settings/runtime
 * The environment variables the runtime reads, parsed once. Code options win over these where
 * both exist.
 */
import { ConfigurationError } from '../errors.js';

export type Environment = Record<string, string | undefined>;

export interface Settings {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** How long a process's claim on a running run lasts without renewal (crash detection). */
  runLeaseMs: number;
  /** The one bound on everything shutdown waits for (runs, jobs, requests), in ms. */
  shutdownTimeoutMs: number;
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDRs). */
  trustedProxies: string[];
  env: Environment;
}

export const DEFAULT_PORT = 7777;
export const DEFAULT_HOST = 'localhost';
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_RUN_LEASE_SECONDS = 30;
export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 10;

/** A comma-separated list; empty entries dropped. */
function list(env: Environment, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function positiveInt(env: Environment, name: string, fallback: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigurationError(`${name} must be a whole number between 1 and ${max}, got "${raw}"`);
  }
  return Number(raw);
}

export function readSettings(env: Environment = process.env): Settings {
  return {
    port: positiveInt(env, 'PORT', DEFAULT_PORT, 65535),
    host: env.HOST?.trim() || DEFAULT_HOST,
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
    maxBodyBytes: positiveInt(env, 'MAX_REQUEST_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1024 * 1024 * 1024),
    runLeaseMs: positiveInt(env, 'RUN_LEASE_SECONDS', DEFAULT_RUN_LEASE_SECONDS, 3600) * 1000,
    shutdownTimeoutMs: positiveInt(env, 'SHUTDOWN_TIMEOUT_SECONDS', DEFAULT_SHUTDOWN_TIMEOUT_SECONDS, 3600) * 1000,
    trustedProxies: list(env, 'TRUSTED_PROXIES'),
    env,
  };
}
