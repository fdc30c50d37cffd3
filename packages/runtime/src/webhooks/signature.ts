/**
 * @module webhooks/signature
 * How a delivery is signed, and how a receiver checks it: `X-Svc-Signature: t=<unix seconds>,v1=<hex>`,
 * where the hex is HMAC-SHA256 under WEBHOOK_SECRET of `<t>.<raw body>`. The timestamp is inside
 * the signed text, so a receiver that refuses old timestamps refuses replays too.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Svc-Signature';

/** The hex HMAC-SHA256 of `<t>.<body>`: what v1 carries. */
function digest(secret: string, timestamp: number | string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The signature header's value for `body` sent at `timestamp` (unix seconds). */
export function signWebhook(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${digest(secret, timestamp, body)}`;
}

export interface VerifyOptions {
  /** How old (or how far ahead) a timestamp may be; default 300 s. */
  toleranceSeconds?: number;
  /** Unix seconds; default now. */
  now?: number;
}

/**
 * Whether `header` signs `body` under `secret` within the tolerance (constant-time compare).
 * For receivers written in TypeScript; the module notes say how to check it in any language.
 */
export function verifyWebhook(secret: string, body: string, header: string | null | undefined, options: VerifyOptions = {}): boolean {
  if (!header) return false;
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim();
    parts.set(key, [...(parts.get(key) ?? []), item.slice(eq + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  if (t === undefined || !/^\d{1,12}$/.test(t)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(t)) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(digest(secret, t, body));
  return (parts.get('v1') ?? []).some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
