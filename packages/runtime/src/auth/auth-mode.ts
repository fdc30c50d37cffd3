/**
 * @module auth/auth-mode
 * Which credential the REST plane demands, decided once at start from code options and the
 * environment. Precedence: jwt > security_key > none.
 */
import { ConfigurationError } from '../errors.js';
import { readAuthCredentials } from '../settings/auth-mode.js';
import type { Environment } from '../settings/environment.js';

export type AuthMode = 'none' | 'security_key' | 'jwt';

export interface AuthModeInputs {
  authorization?: boolean | undefined;
  verificationKeys?: readonly string[] | undefined;
  jwksFile?: string | undefined;
  /** Read for AUTHORIZATION_ENABLED, JWT_VERIFICATION_KEY, JWT_JWKS_FILE and OS_SECURITY_KEY (settings/auth-mode). */
  env: Readonly<Environment>;
}

function present(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/** Throws when authorization is demanded but nothing can verify a token. */
export function resolveAuthMode(inputs: AuthModeInputs): AuthMode {
  const env = readAuthCredentials(inputs.env);
  const hasJwtKey =
    (inputs.verificationKeys?.some((k) => k.trim() !== '') ?? false) ||
    present(inputs.jwksFile) ||
    env.jwtVerificationKey !== undefined ||
    env.jwksFile !== undefined;
  const wantsAuthorization = inputs.authorization === true || env.authorization;
  if (wantsAuthorization && !hasJwtKey) {
    throw new ConfigurationError(
      'authorization is enabled but no JWT verification key is configured: set JWT_VERIFICATION_KEY or ' +
        'JWT_JWKS_FILE, or pass authorization_config.verification_keys / authorization_config.jwks_file',
    );
  }
  if (wantsAuthorization || hasJwtKey) return 'jwt';
  if (env.securityKey !== undefined) return 'security_key';
  return 'none';
}
