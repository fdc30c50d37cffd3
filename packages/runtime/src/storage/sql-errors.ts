/**
 * @module storage/sql-errors
 * Maps driver failures to runtime errors. Callers never see driver messages, which can hold
 * SQL text or connection strings.
 */
import { RuntimeError } from '../errors.js';

/** Thrown by every operation on a closed database. */
export function closedError(): RuntimeError {
  return new RuntimeError('SERVICE_UNAVAILABLE', 'The database is closed');
}

/** Wraps an unexpected driver error so its message stays in logs, not in responses. */
export function storageError(cause: unknown): RuntimeError {
  if (RuntimeError.isInstance(cause)) return cause;
  return new RuntimeError('INTERNAL_SERVER_ERROR', 'Storage operation failed', { cause });
}

/** True when the driver reports a unique-constraint violation (both dialects). */
export function isUniqueViolation(error: unknown): boolean {
  const e = (RuntimeError.isInstance(error) ? error.cause : error) as { code?: unknown } | undefined;
  const code = e?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Refuses text no store may hold: PostgreSQL cannot store a NUL character (SQLite could), and
 * both stores must answer the same. Requests are checked long before this (server/input-guard);
 * this is the backstop for every other way text reaches a store (MCP tool arguments, code).
 */
export function checkParams(params: readonly unknown[]): void {
  for (const p of params) {
    if (typeof p === 'string' && p.includes('\u0000')) {
      throw new RuntimeError('VALIDATION_ERROR', 'Text values may not contain a NUL character');
    }
  }
}
