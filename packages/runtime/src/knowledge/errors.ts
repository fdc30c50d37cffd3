/**
 * @module knowledge/errors
 * The knowledge pipeline's refusals, all RuntimeErrors so the HTTP layer maps them without
 * guessing: the caller asked for something that does not exist (400 BAD_REQUEST), or sent
 * content that cannot be processed (422 VALIDATION_ERROR).
 */
import { RuntimeError } from '../errors.js';

export function badRequest(detail: string, cause?: unknown): RuntimeError {
  return new RuntimeError('BAD_REQUEST', detail, cause === undefined ? {} : { cause });
}

export function unprocessable(detail: string, cause?: unknown): RuntimeError {
  return new RuntimeError('VALIDATION_ERROR', detail, cause === undefined ? {} : { cause });
}
