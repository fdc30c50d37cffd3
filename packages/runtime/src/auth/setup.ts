/**
 * @module auth/setup
 * Builds the Authenticator from the Runtime's options and environment, once, at construction:
 * a missing or unusable key fails the start with a message naming the setting.
 */
import { ConfigurationError } from '../errors.js';
import type { AuthorizationConfig } from './options.js';
import type { Logger } from '../util/logger.js';
import type { Db } from '../storage/db.js';
import { isTruthyEnv, type AuthMode } from './auth-mode.js';
import { Authenticator } from './authenticator.js';
import { FailureLimiter } from './failure-limiter.js';
import { SharedFailureCounter } from './shared-failures.js';
import { JwtVerifier } from './jwt-verifier.js';
import { DEFAULT_ADMIN_SCOPE } from './scopes.js';
import { ServiceAccountStore } from './service-accounts/service-account-store.js';
import { Revocations } from './service-accounts/revocations.js';
import { ServiceAccountVerifier } from './service-accounts/service-account-verifier.js';

/** Failed authentications tolerated per client address and window before 429s. */
export const DEFAULT_FAILURE_LIMIT = 50;
export const DEFAULT_FAILURE_WINDOW_SECONDS = 60;

export interface AuthSetupInputs {
  mode: AuthMode;
  authorization: boolean | undefined;
  config: AuthorizationConfig | undefined;
  /** Used as the audience when `verify_audience` is on and no `audience` is given. */
  runtimeId: string;
  env: Record<string, string | undefined>;
  db: Db;
  log: Logger;
}

function envInt(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new ConfigurationError(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  return Number(raw);
}

/** How long a verified service-account token is cached; revocations still apply at once. */
export const DEFAULT_TOKEN_CACHE_SECONDS = 300;

export function createAuthenticator(inputs: AuthSetupInputs): { auth: Authenticator; store: ServiceAccountStore; revocations: Revocations } {
  const { config, env } = inputs;
  const store = new ServiceAccountStore(inputs.db);
  const revocations = new Revocations(inputs.db, inputs.log);
  const serviceAccounts = new ServiceAccountVerifier(store, inputs.log, {
    cacheTtlMs: envInt(env, 'SERVICE_ACCOUNT_CACHE_TTL_SECONDS', DEFAULT_TOKEN_CACHE_SECONDS, 0) * 1000,
    revocations,
  });
  const limit = config?.failed_auth_limit;
  const failureLimit = {
    maxFailures: limit?.max_failures ?? envInt(env, 'AUTH_FAILURE_LIMIT', DEFAULT_FAILURE_LIMIT, 1),
    windowMs: (limit?.window_seconds ?? envInt(env, 'AUTH_FAILURE_WINDOW_SECONDS', DEFAULT_FAILURE_WINDOW_SECONDS, 1)) * 1000,
  };
  const limiter = new FailureLimiter(failureLimit);
  const sharedFailures = new SharedFailureCounter(inputs.db, failureLimit);

  let jwt: JwtVerifier | undefined;
  if (inputs.mode === 'jwt') {
    // Code options and the environment combine: the env key is added to the configured ones.
    const keys = [...(config?.verification_keys ?? []), ...(env.JWT_VERIFICATION_KEY?.trim() ? [env.JWT_VERIFICATION_KEY] : [])];
    const audience = config?.audience ?? (config?.verify_audience ? inputs.runtimeId : undefined);
    jwt = new JwtVerifier({
      keys,
      jwksFile: config?.jwks_file ?? (env.JWT_JWKS_FILE?.trim() || undefined),
      algorithm: config?.algorithm,
      audience,
      requireExp: config?.require_exp ?? isTruthyEnv(env.JWT_REQUIRE_EXP),
    });
  }

  const auth = new Authenticator({
    mode: inputs.mode,
    rbac: inputs.authorization === true || isTruthyEnv(env.AUTHORIZATION_ENABLED),
    adminScope: config?.admin_scope ?? DEFAULT_ADMIN_SCOPE,
    userIsolation: config?.user_isolation ?? isTruthyEnv(env.USER_ISOLATION),
    jwt,
    securityKey: env.OS_SECURITY_KEY?.trim() || undefined,
    serviceAccounts,
    limiter,
    sharedFailures,
  });
  return { auth, store, revocations };
}
