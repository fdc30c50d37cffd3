/**
 * One request to the runtime's API with the caller's credential, as every `svc` command client
 * makes it: the credential only in the Authorization header, an unreachable runtime and a refused
 * credential (401, 403) turned into CliErrors with a next step. What each answer means beyond
 * that is the client's to say.
 */
import { CliError } from '../errors.js';
import { httpRequest, joinUrl, type HttpResponse } from './request.js';
import { errorDetail } from './service-accounts.js';

export interface RuntimeCall {
  base: string;
  credential: string | undefined;
  env: NodeJS.ProcessEnv;
  method: 'GET' | 'POST' | 'DELETE';
  /** The path with its query, joined to `base` (which may carry a path of its own). */
  path: string;
  timeoutMs: number;
  body?: { text: string; type: string } | undefined;
  /** The next step when the runtime rejects or refuses the credential. */
  credentialHint: string;
  /** How a 403 begins; default "The credential is not allowed to do this". */
  refused?: string;
}

export async function callRuntime(call: RuntimeCall): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.credential) headers.authorization = `Bearer ${call.credential}`;
  if (call.body) headers['content-type'] = call.body.type;
  let res: HttpResponse;
  try {
    res = await httpRequest({ method: call.method, url: joinUrl(call.base, call.path), headers, ...(call.body ? { body: call.body.text } : {}), timeoutMs: call.timeoutMs, env: call.env });
  } catch (error) {
    throw new CliError('UNREACHABLE', `Could not reach the runtime at ${call.base}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'Check that the runtime is running and reachable, or pass --url.',
    });
  }
  if (res.status === 401) throw new CliError('CREDENTIAL_REJECTED', `The runtime rejected the credential (${errorDetail(res)}).`, { hint: call.credentialHint, status: 401 });
  if (res.status === 403) {
    throw new CliError('FORBIDDEN', `${call.refused ?? 'The credential is not allowed to do this'} (${errorDetail(res)}).`, { hint: call.credentialHint, status: 403 });
  }
  return res;
}

/** A JSON body for `RuntimeCall.body`. */
export const jsonBody = (value: unknown): { text: string; type: string } => ({ text: JSON.stringify(value), type: 'application/json' });
