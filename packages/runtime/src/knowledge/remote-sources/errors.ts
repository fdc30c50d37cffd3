/**
 * @module knowledge/remote-sources/errors
 * How a remote source fails: RemoteSourceError, with a stable `reason`, the source id and the path.
 *
 * A RuntimeError, so the HTTP layer and ingestion records show it as any other, with a message
 * that names the source and the path. Messages are built from our own words and the provider's
 * error code and text; every secret the source holds is cut out of them, and no error keeps a
 * transport error as its cause (a cause is logged, and could hold a signed URL).
 *
 * The provider refusing the runtime's own credentials (401/403 there) is a 403 here, never a
 * 401: a 401 would tell the caller that its token to this runtime was wrong.
 */
import { RuntimeError, type ErrorCode } from '../../errors.js';

export type RemoteFailure =
  /** The provider refused the configured credentials (HTTP 401 there). */
  | 'unauthorized'
  /** The credentials are valid but may not read this (HTTP 403 there). */
  | 'forbidden'
  | 'not_found'
  /** 429/503 after the bounded retries, or a Retry-After longer than we wait. */
  | 'throttled'
  /** Other 5xx, an unreachable host, a timeout. */
  | 'unavailable'
  /** An answer that is not what the provider's API promises. */
  | 'bad_answer'
  | 'too_large'
  /** A path, params or a request the source refuses before any I/O. */
  | 'invalid_request'
  /** Any other 4xx from the provider. */
  | 'refused';

const CODES: Record<RemoteFailure, ErrorCode> = {
  unauthorized: 'FORBIDDEN',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  throttled: 'SERVICE_UNAVAILABLE',
  unavailable: 'SERVICE_UNAVAILABLE',
  bad_answer: 'SERVICE_UNAVAILABLE',
  too_large: 'PAYLOAD_TOO_LARGE',
  invalid_request: 'BAD_REQUEST',
  refused: 'BAD_REQUEST',
};

export class RemoteSourceError extends RuntimeError {
  readonly reason: RemoteFailure;
  readonly sourceId: string;
  readonly path: string;
  /** What the provider said (its status, error code and message), already redacted; part of the message. */
  readonly said: string | undefined;

  constructor(reason: RemoteFailure, sourceId: string, path: string, detail: string, headers?: Record<string, string>, said?: string) {
    super(CODES[reason], detail, headers ? { headers } : {});
    this.name = 'RemoteSourceError';
    this.reason = reason;
    this.sourceId = sourceId;
    this.path = path;
    this.said = said;
  }
}

/** A provider's message, one line, at most 200 characters. */
export function shortText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The failure an HTTP status means. */
export function failureForStatus(status: number): RemoteFailure {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 429 || status === 503) return 'throttled';
  if (status >= 500) return 'unavailable';
  if (status === 413) return 'too_large';
  return 'refused';
}

const WHAT: Record<RemoteFailure, string> = {
  unauthorized: 'refused the configured credentials',
  forbidden: 'denied access',
  not_found: 'found nothing',
  throttled: 'is throttling requests',
  unavailable: 'is unavailable',
  bad_answer: 'sent an unexpected answer',
  too_large: 'has a file larger than allowed',
  invalid_request: 'refused the request',
  refused: 'refused the request',
};

/** `Remote source "docs" (s3) found nothing at "a/b.md" (HTTP 404 NoSuchKey: ...)`. */
export function describeFailure(reason: RemoteFailure, source: { id: string; type: string }, path: string, said?: string): string {
  return `Remote source "${source.id}" (${source.type}) ${WHAT[reason]} ${reason === 'not_found' ? 'at' : 'for'} "${path}"${said ? ` (${said})` : ''}`;
}
