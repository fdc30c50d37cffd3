/**
 * What the panel says when a request fails: the runtime's own `detail`, with what a 401 or 403
 * means for the person signed in (the credential was refused; the token lacks a scope).
 */
export interface ApiProblem {
  status: number;
  detail: string;
  code: string | undefined;
  /** The sentence shown: why, and what to do about it. */
  message: string;
}

export function problemOf(status: number, body: unknown): ApiProblem {
  const fields = typeof body === 'object' && body !== null ? (body as { detail?: unknown; error_code?: unknown }) : {};
  const detail = typeof fields.detail === 'string' ? fields.detail : `HTTP ${status}`;
  const code = typeof fields.error_code === 'string' ? fields.error_code : undefined;
  let message = detail;
  if (status === 401) message = `Not signed in or the credential was refused (${detail}). Sign in again.`;
  else if (status === 403) message = `Not allowed: ${detail}. Sign in with a token that has this scope.`;
  else if (status === 429) message = `Too many attempts (${detail}). Wait a moment, then try again.`;
  return { status, detail, code, message };
}

/** For failures with no response at all (the runtime is down, the connection dropped). */
export function networkProblem(error: unknown): ApiProblem {
  const detail = error instanceof Error ? error.message : String(error);
  return { status: 0, detail, code: undefined, message: `The runtime could not be reached: ${detail}` };
}

/** Turns an openapi-fetch result into its data or a thrown ApiProblem. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    throw networkProblem(error);
  }
  if (!result.response.ok) throw problemOf(result.response.status, result.error);
  return result.data as T;
}

export function isProblem(value: unknown): value is ApiProblem {
  return typeof value === 'object' && value !== null && 'status' in value && 'message' in value;
}

export function messageOf(error: unknown): string {
  return isProblem(error) ? error.message : error instanceof Error ? error.message : String(error);
}
