/**
 * @module auth/jwt-verifier
 * Verifies JWT bearers with jose against static keys (PEM public keys or shared secrets) and a
 * JWKS file. Exactly one algorithm is accepted, so `alg: none` and HS/RS confusion fail; keys
 * are checked against that algorithm at start, so a misconfiguration fails loudly instead of
 * silently rejecting (or, worse, accepting) tokens.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ConfigurationError, RuntimeError } from '../errors.js';
import { BoundedCache } from './bounded-cache.js';
import { sha256Hex } from './credentials.js';

export type JwtAlgorithm =
  | 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'HS256' | 'HS384' | 'HS512';

export interface JwtVerifierOptions {
  /** PEM public keys (asymmetric algorithms) or shared secrets (HS*). */
  keys: readonly string[];
  /** Path of a JWKS file; its keys are chosen by the token's `kid`. */
  jwksFile?: string | undefined;
  algorithm?: JwtAlgorithm | undefined;
  /** When set, the token's `aud` must include one of these. */
  audience?: string | readonly string[] | undefined;
  /** Refuse tokens without an `exp` claim (a stolen one would never stop working). */
  requireExp?: boolean | undefined;
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds. */
  leewaySeconds?: number;
  /** How many verified tokens to remember (0 disables the cache). */
  cacheSize?: number;
}

/** Tokens that carry no `exp` are re-verified at least this often. */
const NO_EXPIRY_CACHE_MS = 60_000;
/** A cap even for long-lived tokens, so a rotated-out key stops working within minutes. */
const MAX_CACHE_MS = 5 * 60_000;
const JWS_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

type Key = KeyObject | Uint8Array;

function invalid(detail: string): RuntimeError {
  return new RuntimeError('UNAUTHENTICATED', detail);
}

function asymmetricTypes(algorithm: JwtAlgorithm): readonly string[] {
  if (algorithm.startsWith('RS')) return ['rsa'];
  if (algorithm.startsWith('PS')) return ['rsa', 'rsa-pss'];
  if (algorithm.startsWith('ES')) return ['ec'];
  return ['ed25519', 'ed448'];
}

function staticKey(material: string, algorithm: JwtAlgorithm, index: number): Key {
  const looksPem = material.includes('-----BEGIN');
  if (algorithm.startsWith('HS')) {
    // A public key used as an HMAC secret is the classic confusion attack: anyone holding the
    // public key could sign tokens. Refuse it instead of guessing.
    if (looksPem) throw new ConfigurationError(`verification key #${index + 1} is a PEM key, but algorithm ${algorithm} needs a shared secret`);
    return new TextEncoder().encode(material);
  }
  let key: KeyObject;
  try {
    key = createPublicKey(material);
  } catch {
    throw new ConfigurationError(`verification key #${index + 1} is not a PEM public key usable with ${algorithm}`);
  }
  if (!asymmetricTypes(algorithm).includes(key.asymmetricKeyType ?? '')) {
    throw new ConfigurationError(`verification key #${index + 1} is a ${key.asymmetricKeyType} key, which cannot verify ${algorithm}`);
  }
  return key;
}

function readJwks(path: string): JWTVerifyGetKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigurationError(`JWKS file not found or unreadable: ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigurationError(`Invalid JSON in JWKS file ${path}`);
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new ConfigurationError(`JWKS file ${path} must hold an object with a "keys" array`);
  }
  return createLocalJWKSet(parsed as JSONWebKeySet);
}

export class JwtVerifier {
  readonly algorithm: JwtAlgorithm;
  private readonly keys: Key[];
  private readonly jwks: JWTVerifyGetKey | undefined;
  private readonly audience: string[] | undefined;
  private readonly leeway: number;
  private readonly requireExp: boolean;
  private readonly cache: BoundedCache<JWTPayload>;

  constructor(options: JwtVerifierOptions) {
    this.algorithm = options.algorithm ?? 'RS256';
    const unique = [...new Set(options.keys.map((k) => k.trim()).filter((k) => k !== ''))];
    this.keys = unique.map((k, i) => staticKey(k, this.algorithm, i));
    this.jwks = options.jwksFile ? readJwks(options.jwksFile) : undefined;
    if (this.keys.length === 0 && !this.jwks) {
      throw new ConfigurationError('JWT verification needs a key: set JWT_VERIFICATION_KEY or JWT_JWKS_FILE, or authorization_config.verification_keys / jwks_file');
    }
    this.audience = options.audience === undefined ? undefined : [options.audience].flat();
    this.leeway = options.leewaySeconds ?? 10;
    this.requireExp = options.requireExp === true;
    this.cache = new BoundedCache(options.cacheSize ?? 10_000);
  }

  /** The claims of a token verified before and still cached, else undefined (no verification). */
  cached(token: string, now = Date.now()): JWTPayload | undefined {
    return this.cache.get(sha256Hex(token), now);
  }

  /** The verified claims, or a 401 `RuntimeError` whose detail says why (never a 500). */
  async verify(token: string, now = Date.now()): Promise<JWTPayload> {
    // Keyed by a hash so the cache never holds usable credentials.
    const cacheKey = sha256Hex(token);
    const cached = this.cache.get(cacheKey, now);
    if (cached) return cached;
    if (!JWS_SHAPE.test(token)) throw invalid('Invalid token: not a signed JWT (expected three base64url segments)');

    let lastError: unknown;
    for (const key of this.candidates()) {
      try {
        const options = {
          algorithms: [this.algorithm],
          clockTolerance: this.leeway,
          ...(this.audience ? { audience: this.audience } : {}),
          ...(this.requireExp ? { requiredClaims: ['exp'] } : {}),
          currentDate: new Date(now),
        };
        const { payload } = typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options);
        const ttl = payload.exp === undefined ? NO_EXPIRY_CACHE_MS : Math.min(payload.exp * 1000 - now, MAX_CACHE_MS);
        if (ttl > 0) this.cache.set(cacheKey, payload, now + ttl);
        return payload;
      } catch (error) {
        // An expired or wrong-audience token is wrong whatever the key; stop at once.
        if (error instanceof errors.JWTExpired || isAudienceFailure(error)) throw describe(error);
        lastError = error;
      }
    }
    throw describe(lastError);
  }

  private *candidates(): Iterable<Key | JWTVerifyGetKey> {
    if (this.jwks) yield this.jwks;
    yield* this.keys;
  }
}

function isAudienceFailure(error: unknown): boolean {
  return error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud' && error.reason === 'check_failed';
}

/** jose's messages describe the token, never the key, so they are safe to return. */
function describe(error: unknown): RuntimeError {
  if (error instanceof errors.JWTExpired) return invalid('Token has expired');
  if (isAudienceFailure(error)) return invalid('Invalid token audience - token not valid for this runtime');
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp' && error.reason === 'missing') {
    return invalid('Invalid token: it has no expiry (exp claim), which this runtime requires');
  }
  if (error instanceof errors.JWKSNoMatchingKey) return invalid('Invalid token: no verification key matches the token');
  if (error instanceof errors.JOSEError) return invalid(`Invalid token: ${error.message}`);
  return invalid('Invalid token: it could not be decoded');
}
