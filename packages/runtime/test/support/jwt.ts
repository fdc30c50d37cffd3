/**
 * Real keys and tokens for auth tests: RSA and EC key pairs generated per run, a JWKS file,
 * and an HS256 secret. Nothing is hard-coded, so no test key can leak into a deployment.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

export interface SigningKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  publicPem: string;
  publicJwk: Record<string, unknown>;
}

export async function signingKey(alg: 'RS256' | 'ES256', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicPem: await exportSPKI(publicKey), publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** Writes `{ keys: [...] }` to a fresh temporary file and returns its path. */
export function writeJwks(keys: SigningKey[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-jwks-')), 'jwks.json');
  writeFileSync(path, JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
  return path;
}

export interface TokenOptions {
  claims?: JWTPayload & Record<string, unknown>;
  /** Seconds from now; negative for an expired token; null for a token without `exp`. Default one hour. */
  expiresIn?: number | null;
  notBefore?: number;
  kid?: string | null;
}

function build(options: TokenOptions): SignJWT {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ sub: 'user-1', ...options.claims }).setIssuedAt(now);
  if (options.expiresIn !== null) jwt.setExpirationTime(now + (options.expiresIn ?? 3600));
  if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
  return jwt;
}

export function sign(key: SigningKey, options: TokenOptions = {}): Promise<string> {
  const kid = options.kid === undefined ? key.kid : options.kid;
  return build(options)
    .setProtectedHeader(kid === null ? { alg: key.alg } : { alg: key.alg, kid })
    .sign(key.privateKey);
}

export function signHs256(secret: string, options: TokenOptions = {}): Promise<string> {
  return build(options).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
}

const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** An unsigned token (`alg: none`), built by hand because jose refuses to make one. */
export function unsignedToken(claims: Record<string, unknown>): string {
  return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ exp: Math.floor(Date.now() / 1000) + 3600, ...claims })}.`;
}
