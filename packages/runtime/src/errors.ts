/**
 * @module errors
 * Typed errors with stable codes. Everything the runtime refuses is one of these, so that the
 * HTTP layer can map it to the one error envelope without guessing from messages.
 */

/** The closed set of error codes that can appear in an error body's `error_code`. */
export const ERROR_CODES = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  /** An `Idempotency-Key` reused with another request (method, path or body). */
  IDEMPOTENCY_KEY_REUSED: 409,
  /** The request first sent with this `Idempotency-Key` has not finished making its record. */
  IDEMPOTENCY_KEY_IN_USE: 409,
  /** A budget (budgets/) refuses the run or its next model call; the body names the budget. */
  BUDGET_EXCEEDED: 429,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One field that failed validation, with its path inside the request part it came from. */
export interface FieldError {
  /** e.g. `["body", "scopes", 0, "scope"]` */
  loc: (string | number)[];
  msg: string;
  type: string;
}

const MARKER = Symbol.for('svc.runtime.error');

/**
 * The base error of the runtime. `detail` is safe to show to a caller; `cause` is not and is
 * only logged.
 */
export class RuntimeError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** More members of the error body, safe to show (a refusing budget's figures). */
  readonly fields: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { cause?: unknown; errors?: FieldError[]; headers?: Record<string, string>; fields?: Record<string, unknown> } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RuntimeError';
    this.code = code;
    this.status = ERROR_CODES[code];
    this.errors = options.errors;
    this.headers = options.headers;
    this.fields = options.fields;
  }

  /** Works across duplicated copies of this module, unlike `instanceof`. */
  static isInstance(value: unknown): value is RuntimeError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}

/** Raised while constructing a Runtime from invalid options: a programming error, not a request. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

/** The caller asked for something that does not exist or cannot be done (400 BAD_REQUEST). */
export function badRequest(detail: string, cause?: unknown): RuntimeError {
  return new RuntimeError('BAD_REQUEST', detail, cause === undefined ? {} : { cause });
}

/** The caller sent content that cannot be processed (422 VALIDATION_ERROR). */
export function unprocessable(detail: string, cause?: unknown): RuntimeError {
  return new RuntimeError('VALIDATION_ERROR', detail, cause === undefined ? {} : { cause });
}

/**
 * V8's stack overflow (`RangeError: Maximum call stack size exceeded`), as thrown or as a worker
 * reported it: deterministic for the same input (a file nested too deeply), so never a retry.
 */
export function isStackOverflow(error: { name?: unknown; message?: unknown } | null | undefined): boolean {
  return error?.name === 'RangeError' && typeof error.message === 'string' && error.message.startsWith('Maximum call stack size exceeded');
}
