/**
 * @module idempotency/fingerprint
 * What tells two requests under one `Idempotency-Key` apart: SHA-256 of the method, the path and
 * the body in canonical JSON (keys sorted by safe-stable-stringify), so the same fields sent in
 * another order, or as a form instead of JSON, are the same request.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n`)
    .update(stringify(body) ?? 'null')
    .digest('hex');
}
