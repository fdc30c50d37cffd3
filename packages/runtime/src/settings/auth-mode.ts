/**
 * @module settings/auth-mode
 * The part of the auth area that decides which credential the REST plane demands
 * (auth/auth-mode): reading it never fails, so the mode can be decided from any environment.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `AUTHORIZATION_ENABLED` | off | check JWT scopes on every route (needs a JWT key) |
 * | `JWT_VERIFICATION_KEY` | none | a PEM public key or shared secret, added to the configured keys |
 * | `JWT_JWKS_FILE` | none | a JWKS file, when `jwks_file` is not given |
 * | `OS_SECURITY_KEY` | none | the one shared bearer key (security-key mode) |
 *
 * `AUTHORIZATION_ENABLED` is on for 1, true, yes or on and off for anything else: it has never
 * refused a value, and refusing one now would stop runtimes that start today.
 */
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { switchedOn, text } from './fields.js';

export interface AuthCredentials {
  /** AUTHORIZATION_ENABLED. */
  authorization: boolean;
  /** As set, not trimmed (a PEM keeps its line ends); undefined when blank. */
  jwtVerificationKey: string | undefined;
  jwksFile: string | undefined;
  securityKey: string | undefined;
}

export const authCredentialFields = {
  AUTHORIZATION_ENABLED: switchedOn(),
  JWT_VERIFICATION_KEY: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value : undefined)),
  JWT_JWKS_FILE: text(),
  OS_SECURITY_KEY: text(),
};

export function authCredentials(env: z.output<z.ZodObject<typeof authCredentialFields>>): AuthCredentials {
  return { authorization: env.AUTHORIZATION_ENABLED, jwtVerificationKey: env.JWT_VERIFICATION_KEY, jwksFile: env.JWT_JWKS_FILE, securityKey: env.OS_SECURITY_KEY };
}

export const authCredentialsSchema = z.object(authCredentialFields).transform(authCredentials);

export function readAuthCredentials(env: Readonly<Environment>): AuthCredentials {
  return readEnvironment(authCredentialsSchema, env);
}
