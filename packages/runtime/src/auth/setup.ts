/**
 * @module auth/setup
 * Builds the Authenticator from the Runtime's options and its auth settings, once, at
 * construction: a missing or unusable key fails the start with a message naming the setting.
 */
import type { AuthorizationConfig } from './options.js';
import type { Logger } from '../util/logger.js';
import type { Db } from '../storage/db.js';
import type { AuthSettings } from '../settings/auth.js';
import type { AuthMode } from './auth-mode.js';
import { Authenticator } from './authenticator.js';
import { FailureLimiter } from './failure-limiter.js';
import { SharedFailureCounter } from './shared-failures.js';
import { JwtVerifier } from './jwt-verifier.js';
import { DEFAULT_ADMIN_SCOPE } from './scopes.js';
import { DEFAULT_TENANT_ADMIN_SCOPE } from './tenancy.js';
import { ServiceAccountStore } from './service-accounts/service-account-store.js';
import { Revocations } from './service-accounts/revocations.js';
import { ServiceAccountVerifier } from './service-accounts/service-account-verifier.js';

export interface AuthSetupInputs {
  mode: AuthMode;
  authorization: boolean | undefined;
  config: AuthorizationConfig | undefined;
  /** Used as the audience when `verify_audience` is on and no `audience` is given. */
  runtimeId: string;
  /** The auth area of the environment (settings/auth); `config` wins where both say something. */
  settings: AuthSettings;
  db: Db;
  log: Logger;
}

export function createAuthenticator(inputs: AuthSetupInputs): { auth: Authenticator; store: ServiceAccountStore; revocations: Revocations } {
  const { config, settings } = inputs;
  const store = new ServiceAccountStore(inputs.db);
  const revocations = new Revocations(inputs.db, inputs.log);
  const serviceAccounts = new ServiceAccountVerifier(store, inputs.log, {
    cacheTtlMs: settings.tokenCacheMs,
    revocations,
  });
  const limit = config?.failed_auth_limit;
  const failureLimit = limit ? { maxFailures: limit.max_failures, windowMs: limit.window_seconds * 1000 } : settings.failureLimit;
  const limiter = new FailureLimiter(failureLimit);
  const sharedFailures = new SharedFailureCounter(inputs.db, failureLimit);

  let jwt: JwtVerifier | undefined;
  if (inputs.mode === 'jwt') {
    // Code options and the environment combine: the env key is added to the configured ones.
    const keys = [...(config?.verification_keys ?? []), ...(settings.jwtVerificationKey ? [settings.jwtVerificationKey] : [])];
    const audience = config?.audience ?? (config?.verify_audience ? inputs.runtimeId : undefined);
    jwt = new JwtVerifier({
      keys,
      jwksFile: config?.jwks_file ?? settings.jwksFile,
      algorithm: config?.algorithm,
      audience,
      requireExp: config?.require_exp ?? settings.requireExp,
    });
  }

  const auth = new Authenticator({
    mode: inputs.mode,
    rbac: inputs.authorization === true || settings.authorization,
    adminScope: config?.admin_scope ?? DEFAULT_ADMIN_SCOPE,
    userIsolation: config?.user_isolation ?? settings.userIsolation,
    tenantClaim: config?.tenant_claim ?? settings.tenantClaim,
    tenantAdminScope: config?.tenant_admin_scope ?? settings.tenantAdminScope ?? DEFAULT_TENANT_ADMIN_SCOPE,
    jwt,
    securityKey: settings.securityKey,
    serviceAccounts,
    limiter,
    sharedFailures,
  });
  return { auth, store, revocations };
}
