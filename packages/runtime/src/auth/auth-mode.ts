/**
 * @module auth/auth-mode
 * Which credential the REST plane demands, decided once at start from code options and the
 * environment. Precedence: jwt > security_key > none.
 */
import { ConfigurationError } from '../errors.js';

export type AuthMode = 'none' | 'security_key' | 'jwt';

export interface AuthModeInputs {
  authorization?: boolean | undefined;
  verificationKeys?: readonly string[] | undefined;
  jwksFile?: string | undefined;
  env: {
    AUTHORIZATION_ENABLED?: string | undefined;
    JWT_VERIFICATION_KEY?: string | undefined;
    JWT_JWKS_FILE?: string | undefined;
    OS_SECURITY_KEY?: string | undefined;
  };
}

export function isTruthyEnv(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

function present(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/** Throws when authorization is demanded but nothing can verify a token. */
export function resolveAuthMode(inputs: AuthModeInputs): AuthMode {
  const { env } = inputs;
  const hasJwtKey =
    (inputs.verificationKeys?.some((k) => k.trim() !== '') ?? false) ||
    present(inputs.jwksFile) ||
    present(env.JWT_VERIFICATION_KEY) ||
    present(env.JWT_JWKS_FILE);
  const wantsAuthorization = inputs.authorization === true || isTruthyEnv(env.AUTHORIZATION_ENABLED);
  if (wantsAuthorization && !hasJwtKey) {
    throw new ConfigurationError(
      'authorization is enabled but no JWT verification key is configured: set JWT_VERIFICATION_KEY or ' +
        'JWT_JWKS_FILE, or pass authorization_config.verification_keys / authorization_config.jwks_file',
    );
  }
  if (wantsAuthorization || hasJwtKey) return 'jwt';
  if (present(env.OS_SECURITY_KEY)) return 'security_key';
  return 'none';
}
