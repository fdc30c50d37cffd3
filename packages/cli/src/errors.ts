/**
 * Typed errors. Every failure the user can act on is a CliError with a stable code and, where
 * there is a next step, a hint; the action runner (commands/action.ts) turns it into exit 1 and
 * `{error, hint}` in JSON mode.
 * UsageError is the other kind: bad command lines exit 2 and never print JSON.
 */

export type CliErrorCode =
  | 'NO_RUNTIME'
  | 'INVALID_URL'
  | 'UNTRUSTED_URL'
  | 'PLAINTEXT_HTTP'
  | 'CREDENTIAL_REQUIRED'
  | 'CREDENTIAL_REJECTED'
  | 'FORBIDDEN'
  | 'CANNOT_MINT'
  | 'UNREACHABLE'
  | 'BAD_RESPONSE'
  | 'CONFLICT'
  | 'NOT_FOUND'
  | 'API_ERROR'
  | 'ABORTED'
  | 'JOB_FAILED'
  | 'INVALID_INPUT'
  | 'INVALID_NAME'
  | 'NAME_REQUIRED'
  | 'DIRECTORY_EXISTS'
  | 'GIT_MISSING'
  | 'GIT_FAILED'
  | 'ENV_SEED_FAILED'
  | 'COMPOSE_FILE_MISSING'
  | 'DOCKER_MISSING'
  | 'DOCKER_FAILED'
  | 'PROMPT_UNAVAILABLE'
  | 'CONFIG_INVALID'
  | 'MCP_DISABLED'
  | 'UNKNOWN_CLIENT'
  | 'NO_CLIENTS'
  | 'OAUTH_ONLY'
  | 'INTERNAL';

export class CliError extends Error {
  readonly code: CliErrorCode;
  readonly hint: string | undefined;
  /** Extra facts for callers (for example the HTTP status behind an API error). */
  readonly status: number | undefined;

  constructor(code: CliErrorCode, message: string, options: { hint?: string | undefined; status?: number } = {}) {
    super(message);
    this.name = 'CliError';
    this.code = code;
    this.hint = options.hint;
    this.status = options.status;
  }
}

/** A malformed command line: exit 2, stderr only, even with --json. */
export class UsageError extends Error {
  readonly hint: string | undefined;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = 'UsageError';
    this.hint = hint;
  }
}

/** A failure as one line of a result row: a CliError's message and hint, else what it was. */
export function errorText(error: unknown): string {
  if (error instanceof CliError) return error.hint ? `${error.message} ${error.hint}` : error.message;
  return `Unexpected error (${error instanceof Error ? error.name : typeof error}): ${error instanceof Error ? error.message : String(error)}`;
}

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
/** `svc knowledge eval --min-ndcg`: the eval ran, and its nDCG is below the minimum (a CI gate). */
export const EXIT_BELOW_MINIMUM = 4;
