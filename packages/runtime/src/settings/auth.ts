/**
 * @module settings/auth
 * The auth area: the credentials (settings/auth-mode), what a verified caller may see, and how
 * failed attempts are limited. Code options (`authorization`, `authorization_config`) win where
 * both exist.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `AUTHORIZATION_ENABLED`, `JWT_VERIFICATION_KEY`, `JWT_JWKS_FILE`, `OS_SECURITY_KEY` | | see settings/auth-mode |
 * | `JWT_REQUIRE_EXP` | off | refuse JWTs without an `exp` claim |
 * | `USER_ISOLATION` | on | confine each user to their own data; 0, false, no or off opt out |
 * | `TENANT_CLAIM` | | the JWT claim naming the caller's tenant (e.g. `org_id`); set, tenancy is on |
 * | `TENANT_ADMIN_SCOPE` | `tenant:admin` | the scope that administers the caller's own tenant |
 * | `SERVICE_ACCOUNT_CACHE_TTL_SECONDS` | 300 | how long a verified service-account token is cached, 0 or more |
 * | `AUTH_FAILURE_LIMIT` | 50 | failed authentications per client address and window before 429s, at least 1 |
 * | `AUTH_FAILURE_WINDOW_SECONDS` | 60 | that window, at least 1 |
 *
 * The switches read like `AUTHORIZATION_ENABLED`: on for 1, true, yes or on, never refused.
 */
import { z } from 'zod';
import { authCredentialFields, authCredentials, type AuthCredentials } from './auth-mode.js';
import { seconds, switchedOff, switchedOn, text, wholeNumber } from './fields.js';

/** Failed authentications tolerated per client address and window before 429s. */
export const DEFAULT_FAILURE_LIMIT = 50;
export const DEFAULT_FAILURE_WINDOW_SECONDS = 60;
/** How long a verified service-account token is cached; revocations still apply at once. */
export const DEFAULT_TOKEN_CACHE_SECONDS = 300;

export interface AuthSettings extends AuthCredentials {
  requireExp: boolean;
  userIsolation: boolean;
  /** The JWT claim naming the tenant; undefined: no tenancy. */
  tenantClaim: string | undefined;
  tenantAdminScope: string | undefined;
  /** How long a verified service-account token is cached, in ms. */
  tokenCacheMs: number;
  failureLimit: { maxFailures: number; windowMs: number };
}

export const authSettingsSchema = z
  .object({
    ...authCredentialFields,
    JWT_REQUIRE_EXP: switchedOn(),
    USER_ISOLATION: switchedOff(),
    TENANT_CLAIM: text(),
    TENANT_ADMIN_SCOPE: text(),
    SERVICE_ACCOUNT_CACHE_TTL_SECONDS: seconds({ min: 0, default: DEFAULT_TOKEN_CACHE_SECONDS }),
    AUTH_FAILURE_LIMIT: wholeNumber({ min: 1, default: DEFAULT_FAILURE_LIMIT }),
    AUTH_FAILURE_WINDOW_SECONDS: seconds({ min: 1, default: DEFAULT_FAILURE_WINDOW_SECONDS }),
  })
  .transform(
    (env): AuthSettings => ({
      ...authCredentials(env),
      requireExp: env.JWT_REQUIRE_EXP,
      userIsolation: env.USER_ISOLATION,
      tenantClaim: env.TENANT_CLAIM,
      tenantAdminScope: env.TENANT_ADMIN_SCOPE,
      tokenCacheMs: env.SERVICE_ACCOUNT_CACHE_TTL_SECONDS,
      failureLimit: { maxFailures: env.AUTH_FAILURE_LIMIT, windowMs: env.AUTH_FAILURE_WINDOW_SECONDS },
    }),
  );
