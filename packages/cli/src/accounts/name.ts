/**
 * Service-account names: a lowercase slug of at most 63 characters, as the server enforces.
 * Checked locally too, so a typo fails before any network call or credential prompt.
 */
import { CliError } from '../errors.js';

export const ACCOUNT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isValidAccountName(name: string): boolean {
  return ACCOUNT_NAME_PATTERN.test(name);
}

export function assertAccountName(name: string): void {
  if (isValidAccountName(name)) return;
  throw new CliError('INVALID_NAME', `Invalid service account name: ${name}`, {
    hint: "Use a lowercase slug of at most 63 characters: a-z, 0-9, '-' and '_', starting with a letter or digit.",
  });
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Who runs this: the login name the shell reports, else the account's. */
export function currentUser(env: NodeJS.ProcessEnv, fallback: () => string): string {
  for (const key of ['USER', 'LOGNAME', 'USERNAME']) {
    const value = env[key]?.trim();
    if (value) return value;
  }
  try {
    return fallback();
  } catch {
    return '';
  }
}

/**
 * The account name for one user's client when the plain client id is taken by someone else's
 * account: the client id plus a slug of the user and the host (`terminal-agent-ann-laptop`),
 * cut to the 63 characters a name may have.
 */
export function perUserAccountName(base: string, user: string, host: string): string {
  const who = [slug(user), slug(host.split('.')[0] ?? '')].filter((part) => part !== '').join('-') || 'user';
  return `${base}-${who}`.slice(0, 63).replace(/[-_]+$/, '');
}
