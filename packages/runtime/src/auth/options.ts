/**
 * @module auth/options
 * The `authorization_config` a Runtime takes (the specification's names), validated with zod.
 */
import { z } from 'zod';

export const JWT_ALGORITHMS = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'HS256', 'HS384', 'HS512',
] as const;

export const authorizationConfigSchema = z
  .object({
    /** PEM public keys or shared secrets; `JWT_VERIFICATION_KEY` is added to these. */
    verification_keys: z.array(z.string().min(1)).optional(),
    /** Path to a JWKS file; `JWT_JWKS_FILE` is used when absent. */
    jwks_file: z.string().min(1).optional(),
    /** The one accepted algorithm; defaults to RS256. */
    algorithm: z.enum(JWT_ALGORITHMS).optional(),
    /** Require this audience (or the runtime id when `verify_audience` is true and this is absent). */
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    verify_audience: z.boolean().optional(),
    /** The scope that passes every check; defaults to `agent_os:admin`. */
    admin_scope: z.string().min(1).optional(),
    /**
     * Confine each user to their own sessions, runs and their events, traces, knowledge content
     * (plus shared content), memories and schedules; admins, the security key and open runtimes
     * are not confined. On by default (USER_ISOLATION, else true); `false` is the explicit
     * opt-out that lets every user with a read scope see every user's data.
     */
    user_isolation: z.boolean().optional(),
    /**
     * Tenancy: the JWT claim naming the caller's tenant (e.g. `org_id`; TENANT_CLAIM). Set, every
     * row carries its tenant and every read and write is confined to the caller's; a token
     * without the claim is refused (global admins excepted). Service-account tokens carry the
     * tenant that minted them.
     */
    tenant_claim: z.string().min(1).max(200).optional(),
    /** The scope that administers its own tenant only (TENANT_ADMIN_SCOPE, else `tenant:admin`). */
    tenant_admin_scope: z.string().min(1).max(200).optional(),
    /** Refuse JWTs without an `exp` claim (defaults to JWT_REQUIRE_EXP, else false). */
    require_exp: z.boolean().optional(),
    /** Failed authentications per client address before 429 (defaults: AUTH_FAILURE_LIMIT or 50 per 60 s). */
    failed_auth_limit: z
      .object({ max_failures: z.number().int().min(1), window_seconds: z.number().int().min(1) })
      .strict()
      .optional(),
  })
  .strict();

export type AuthorizationConfig = z.infer<typeof authorizationConfigSchema>;
