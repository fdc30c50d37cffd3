/**
 * @module server/errors
 * The one error envelope, `{"detail": string, "error_code": string}`, for every failure on
 * every route, including the ones Hono and the validator raise on their own.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from '@hono/zod-openapi';
import { bearerChallenge } from '../auth/challenge.js';
import { bearerFrom } from '../auth/credentials.js';
import type { FieldError } from '../errors.js';
import { ERROR_CODES, RuntimeError, type ErrorCode } from '../errors.js';
import type { Logger } from '../util/logger.js';
import type { BlockList } from 'node:net';
import { clientAddress } from './client-address.js';

export const ErrorBodySchema = z
  .object({
    detail: z.string().openapi({ example: 'Not Found' }),
    error_code: z.string().nullable().optional().openapi({ example: 'NOT_FOUND' }),
    errors: z
      .array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }))
      .optional(),
  })
  .openapi('ErrorResponse');

export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export function errorResponse(
  code: ErrorCode,
  detail: string,
  extra: { errors?: FieldError[] | undefined; headers?: Record<string, string> | undefined; fields?: Record<string, unknown> | undefined } = {},
): Response {
  // A detail may quote the request (an id that was not found); a huge input is not sent back.
  const body: ErrorBody = {
    ...extra.fields, detail: detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail, error_code: code };
  if (extra.errors) body.errors = extra.errors;
  return new Response(JSON.stringify(body), {
    status: ERROR_CODES[code],
    headers: { 'content-type': 'application/json', ...extra.headers },
  });
}

/** The general code of each status (the first listed: CONFLICT, not an idempotency code, for 409). */
const STATUS_TO_CODE: Record<number, ErrorCode> = Object.fromEntries(
  Object.entries(ERROR_CODES)
    .toReversed()
    .map(([code, status]) => [status, code as ErrorCode]),
);

/** The longest `detail` sent; longer ones are cut. */
const MAX_DETAIL = 300;

/** Converts a zod failure into field errors whose `loc` starts with the request part. */
export function toFieldErrors(part: string, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    loc: [part, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
}

export function validationError(errors: FieldError[]): RuntimeError {
  const first = errors[0];
  const where = first ? first.loc.join('.') : 'request';
  const detail = `Validation failed at ${where}: ${first?.msg ?? 'invalid input'}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  return new RuntimeError('VALIDATION_ERROR', detail, { errors });
}

/**
 * The `WWW-Authenticate` value for a 401 answering `c`. Whether a credential was sent decides
 * between a bare challenge and `invalid_token`; `reason` is the error's detail, which says why
 * a token failed but never contains it.
 */
export function challengeFor(c: Context, realm: string, reason: string, resourceMetadata?: string): string {
  const sent = bearerFrom(c.req.header('authorization')) !== undefined;
  return bearerChallenge({ realm, invalidToken: sent ? { description: reason } : undefined, resourceMetadata });
}

/**
 * Hono's `onError`: typed errors keep their status; anything else is a 500 with no detail
 * leaked. Every 401 carries a `WWW-Authenticate` challenge for `realm`.
 */
export function handleError(log: Logger, realm: string, proxies?: BlockList) {
  return (error: Error, c: Context): Response => {
    if (RuntimeError.isInstance(error)) {
      if (error.status >= 500) log.error(`${c.req.method} ${c.req.path} failed: ${error.message}`, error);
      const headers = error.status === 401 ? { 'www-authenticate': challengeFor(c, realm, error.message), ...error.headers } : error.headers;
      return errorResponse(error.code, error.message, { errors: error.errors, headers, fields: error.fields });
    }
    if (error instanceof HTTPException) {
      const code = STATUS_TO_CODE[error.status] ?? (error.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
      // Hono's own messages (e.g. "Malformed JSON in request body") are written for callers.
      const detail = error.message || defaultDetail(code);
      return errorResponse(code, detail);
    }
    // The id ties the caller's report to the log line without revealing anything about the failure.
    const requestId = c.req.header('x-request-id')?.slice(0, 128) || randomUUID();
    log.error(`${c.req.method} ${c.req.path} from ${clientAddress(c, proxies)} failed (request ${requestId})`, error);
    return errorResponse('INTERNAL_SERVER_ERROR', `Internal server error (request ${requestId})`);
  };
}

export function defaultDetail(code: ErrorCode): string {
  switch (code) {
    case 'NOT_FOUND':
      return 'Not Found';
    case 'BAD_REQUEST':
      return 'Bad Request';
    case 'PAYLOAD_TOO_LARGE':
      return 'Request body too large';
    default:
      return code.toLowerCase().replace(/_/g, ' ');
  }
}

export function statusOf(code: ErrorCode): ContentfulStatusCode {
  return ERROR_CODES[code] as ContentfulStatusCode;
}
