/**
 * The runtime's `GET /auth/whoami`: who the runtime takes the credential to be, its tenant under
 * tenancy and the scopes it is granted. The answer is checked field by field and becomes a
 * Caller or a CliError with a next step; the credential travels only in the Authorization header.
 */
import { CliError } from '../errors.js';
import { isObject, parseJson } from '../util/json.js';
import { callRuntime } from './runtime-call.js';
import { errorDetail } from './service-accounts.js';

const TIMEOUT_MS = 30_000;

export const WHOAMI_CREDENTIAL_HINT = 'Set SVC_ADMIN_TOKEN (or OS_SECURITY_KEY) to the credential to describe: any accepted credential may ask who it is.';

export interface Caller {
  auth_mode: string;
  kind: string;
  user_id: string | null;
  service_account: string | null;
  scopes: string[];
  scopes_enforced: boolean;
  /** Absent from runtimes before tenancy. */
  tenant: string | null;
  tenant_admin: boolean;
  granted: string[];
}

const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

export function parseCaller(v: unknown): Caller | undefined {
  if (!isObject(v) || typeof v.auth_mode !== 'string' || typeof v.kind !== 'string' || !strOrNull(v.user_id) || !strOrNull(v.service_account)) return undefined;
  if (!strings(v.scopes) || typeof v.scopes_enforced !== 'boolean' || !strings(v.granted)) return undefined;
  const tenant = v.tenant ?? null;
  if (!strOrNull(tenant) || (v.tenant_admin !== undefined && typeof v.tenant_admin !== 'boolean')) return undefined;
  return {
    auth_mode: v.auth_mode,
    kind: v.kind,
    user_id: v.user_id,
    service_account: v.service_account,
    scopes: v.scopes,
    scopes_enforced: v.scopes_enforced,
    tenant,
    tenant_admin: v.tenant_admin === true,
    granted: v.granted,
  };
}

export async function getCaller(base: string, credential: string | undefined, env: NodeJS.ProcessEnv): Promise<Caller> {
  const res = await callRuntime({
    base, credential, env, method: 'GET', path: '/auth/whoami', timeoutMs: TIMEOUT_MS,
    credentialHint: WHOAMI_CREDENTIAL_HINT, refused: 'The runtime refused this credential',
  });
  if (res.status !== 200) throw new CliError('API_ERROR', `The runtime refused to say who the caller is: ${errorDetail(res)}`, { status: res.status });
  const caller = parseCaller(parseJson(res.body));
  if (!caller) {
    throw new CliError('BAD_RESPONSE', `The runtime at ${base} gave an unexpected answer to GET /auth/whoami.`, { hint: 'Check the URL (--url or RUNTIME_URL).' });
  }
  return caller;
}
