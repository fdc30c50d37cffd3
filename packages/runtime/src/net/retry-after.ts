/**
 * @module net/retry-after
 * How long a server asks us to wait. `Retry-After` (RFC 9110 §10.2.3) is delta-seconds or an
 * HTTP date; OpenAI-style `x-ratelimit-reset-*` headers are Go durations (`1s`, `6m0s`, `20ms`).
 * Both read as milliseconds, undefined when absent or unreadable, so a caller falls back to its
 * own backoff rather than trusting a guess.
 */

/** `Retry-After` in ms: delta-seconds (fractions tolerated) or an HTTP date, never negative. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

const DURATION_UNITS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** `1s`, `6m0s`, `20ms`, `1h2m3.5s` (OpenAI's reset headers), or plain seconds, in ms. */
export function parseResetDuration(value: string | null): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    if (match.index !== consumed) return undefined;
    total += Number(match[1]) * DURATION_UNITS[match[2]!]!;
    consumed += match[0].length;
  }
  return consumed === text.length && consumed > 0 ? Math.round(total) : undefined;
}
