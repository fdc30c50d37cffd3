/**
 * @module auth/credentials
 * Reading the bearer from a request, and comparing secrets without leaking timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Longer bearers are refused before any parsing or hashing (a JWT is rarely above 4 KB; Node refuses headers past 16 KB itself). */
export const MAX_TOKEN_LENGTH = 12 * 1024;

/**
 * The credential in an `Authorization` header: `Bearer <token>` (scheme case-insensitive), or a
 * bare token, trimmed. `Bearer` with nothing after it counts as no credential.
 */
export function bearerFrom(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  let value = header.trim();
  if (/^bearer(\s|$)/i.test(value)) value = value.slice(6).trim();
  return value === '' ? undefined : value;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/**
 * Constant-time equality of two secrets. Both sides are hashed first so that neither the
 * content nor the length of the expected secret influences the comparison time.
 */
export function secretsEqual(provided: string, expected: string): boolean {
  const a = createHash('sha256').update(provided, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
