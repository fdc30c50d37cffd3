/**
 * @module settings/webhooks
 * The webhooks area: how the end of a run is posted to the URL a run request (or a schedule)
 * named.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `WEBHOOK_SECRET` | none | the HMAC-SHA256 key every delivery is signed with (`X-Svc-Signature: t=<unix>,v1=<hex>` over `<t>.<body>`); at least 16 characters. Unset: a request naming a webhook is refused (422), nothing is ever sent unsigned |
 * | `WEBHOOK_ALLOW_PRIVATE_HOSTS` | false | true lets receivers on loopback and private addresses through the SSRF guard (an internal service; tests) |
 * | `WEBHOOK_MAX_ATTEMPTS` | 8 | attempts per delivery (1 to 20) before it is given up as `failed` |
 * | `WEBHOOK_TIMEOUT_SECONDS` | 10 | one attempt's bound, connect to last byte (1 to 120) |
 * | `WEBHOOK_RETRY_BASE_SECONDS` | 5 | the wait after the first failed attempt, doubled after each further one (with jitter), at most an hour (1 to 3600) |
 */
import { z } from 'zod';
import { flag, seconds, text, wholeNumber } from './fields.js';

export interface WebhookSettings {
  /** Undefined: webhook requests are refused. */
  secret: string | undefined;
  allowPrivateHosts: boolean;
  maxAttempts: number;
  timeoutMs: number;
  retryBaseMs: number;
}

export const webhookSettingsSchema = z
  .object({
    WEBHOOK_SECRET: text().refine((s) => s === undefined || s.length >= 16, 'must be at least 16 characters'),
    WEBHOOK_ALLOW_PRIVATE_HOSTS: flag(false),
    WEBHOOK_MAX_ATTEMPTS: wholeNumber({ min: 1, max: 20, default: 8 }),
    WEBHOOK_TIMEOUT_SECONDS: seconds({ min: 1, max: 120, default: 10 }),
    WEBHOOK_RETRY_BASE_SECONDS: seconds({ min: 1, max: 3600, default: 5 }),
  })
  .transform(
    (env): WebhookSettings => ({
      secret: env.WEBHOOK_SECRET,
      allowPrivateHosts: env.WEBHOOK_ALLOW_PRIVATE_HOSTS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      timeoutMs: env.WEBHOOK_TIMEOUT_SECONDS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_SECONDS,
    }),
  );
