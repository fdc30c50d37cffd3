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
