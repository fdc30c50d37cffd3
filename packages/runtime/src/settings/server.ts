/**
 * @module settings/server
 * The server area: where the runtime listens, its database, its request and shutdown bounds,
 * and the proxies it believes.
 *
 * | variable | default | limits |
 * | --- | --- | --- |
 * | `PORT` | 7777 | 1 to 65535 |
 * | `HOST` | `localhost` | |
 * | `DATABASE_URL` | the embedded SQLite database | |
 * | `MAX_REQUEST_BODY_BYTES` | 10485760 (10 MiB) | 1 to 1 GiB |
 * | `RUN_LEASE_SECONDS` | 30 | 1 to 3600 |
 * | `SHUTDOWN_TIMEOUT_SECONDS` | 10 | 1 to 3600 |
 * | `TRUSTED_PROXIES` | none | comma list of addresses or CIDRs (checked by server/client-address) |
 */
import { z } from 'zod';
import { list, seconds, text, wholeNumber } from './fields.js';

export const DEFAULT_PORT = 7777;
export const DEFAULT_HOST = 'localhost';
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_RUN_LEASE_SECONDS = 30;
export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 10;

export interface ServerSettings {
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
}

export const serverSettingsSchema = z
  .object({
    PORT: wholeNumber({ min: 1, max: 65535, default: DEFAULT_PORT, between: true }),
    HOST: text(DEFAULT_HOST),
    DATABASE_URL: text(),
    MAX_REQUEST_BODY_BYTES: wholeNumber({ min: 1, max: 1024 * 1024 * 1024, default: DEFAULT_MAX_BODY_BYTES, between: true }),
    RUN_LEASE_SECONDS: seconds({ min: 1, max: 3600, default: DEFAULT_RUN_LEASE_SECONDS, between: true }),
    SHUTDOWN_TIMEOUT_SECONDS: seconds({ min: 1, max: 3600, default: DEFAULT_SHUTDOWN_TIMEOUT_SECONDS, between: true }),
    TRUSTED_PROXIES: list(),
  })
  .transform(
    (env): ServerSettings => ({
      port: env.PORT,
      host: env.HOST,
      databaseUrl: env.DATABASE_URL,
      maxBodyBytes: env.MAX_REQUEST_BODY_BYTES,
      runLeaseMs: env.RUN_LEASE_SECONDS,
      shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_SECONDS,
      trustedProxies: env.TRUSTED_PROXIES,
    }),
  );
