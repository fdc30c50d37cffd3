/**
 * The admin credential for the service-accounts API: SVC_ADMIN_TOKEN, then OS_SECURITY_KEY,
 * then (interactive runs only) a hidden prompt. It is only ever read from the environment or
 * the terminal, never from the command line, where `ps` and shell history would show it.
 */
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { ADMIN_HINT } from '../http/service-accounts.js';
import { askSecret } from '../output/prompt.js';

export const ADMIN_SOURCES_HINT =
  'Create a short-lived admin token on the runtime, or set SVC_ADMIN_TOKEN (or OS_SECURITY_KEY) in the environment.';

export function exportedCredential(env: NodeJS.ProcessEnv): string | undefined {
  for (const key of ['SVC_ADMIN_TOKEN', 'OS_SECURITY_KEY']) {
    const value = env[key]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** `action` completes "requires an admin credential to ...": what the command needs it for. */
export async function resolveAdminCredential(ctx: Context, authMode: string, action = 'mint tokens'): Promise<string | undefined> {
  const exported = exportedCredential(ctx.env);
  // An open runtime needs nothing, so never ask for something it would not check.
  if (exported || authMode === 'none') return exported;
  if (!ctx.interactive) {
    throw new CliError('CREDENTIAL_REQUIRED', `This runtime requires an admin credential to ${action} (auth mode: ${authMode}).`, { hint: ADMIN_SOURCES_HINT });
  }
  ctx.out.line(ADMIN_SOURCES_HINT);
  const answer = (await askSecret('Admin credential for this runtime')).trim();
  if (answer === '') throw new CliError('CREDENTIAL_REQUIRED', 'No admin credential given.', { hint: ADMIN_HINT });
  return answer;
}

/** What a command needs a credential for, so the error and the prompt can say so. */
export interface CredentialNeed {
  /** Completes "requires a credential to ...": "reindex knowledge". */
  action: string;
  /** The scope the credential must hold: "knowledge:write". */
  scope: string;
  hint: string;
}

/**
 * A credential for a scoped (not admin-only) operation: SVC_ADMIN_TOKEN or OS_SECURITY_KEY; on
 * a terminal it may be typed (never on the command line). An open runtime needs none.
 */
export async function resolveScopedCredential(ctx: Context, authMode: string, need: CredentialNeed): Promise<string | undefined> {
  const exported = exportedCredential(ctx.env);
  if (exported || authMode === 'none') return exported;
  if (!ctx.interactive) {
    throw new CliError('CREDENTIAL_REQUIRED', `This runtime requires a credential to ${need.action} (auth mode: ${authMode}).`, { hint: need.hint });
  }
  const answer = (await askSecret(`Credential with the ${need.scope} scope`)).trim();
  if (answer === '') throw new CliError('CREDENTIAL_REQUIRED', 'No credential given.', { hint: need.hint });
  return answer;
}
