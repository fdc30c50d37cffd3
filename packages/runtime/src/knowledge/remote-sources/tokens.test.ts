import { generateKeyPairSync, sign } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../errors.js';
import { privateKeyFrom, signJwt } from './tokens.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PKCS8 = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PKCS1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The JWT as the runtime built it by hand before jose signed it: RS256 is deterministic, so the bytes must match. */
function handSigned(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const input = `${part({ alg: 'RS256', typ: 'JWT', ...header })}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

describe('signJwt', () => {
  const now = 1_900_000_000;

  it('signs a GitHub App JWT byte for byte as before, from a PKCS#1 key', async () => {
    const claims = { iat: now - 60, exp: now + 540, iss: '12345' };
    const jwt = await signJwt({}, claims, privateKeyFrom(PKCS1, 'app.privateKey'));
    expect(jwt).toBe(handSigned({}, claims));
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'RS256', typ: 'JWT' });
  });

  it('signs a service-account assertion byte for byte as before, with its key id, from a PKCS#8 key', async () => {
    const claims = { iss: 'sa@p.iam.gserviceaccount.com', scope: 'https://www.googleapis.com/auth/devstorage.read_only', aud: 'https://oauth2.googleapis.com/token', iat: now, exp: now + 3600 };
    const jwt = await signJwt({ kid: 'key-1' }, claims, privateKeyFrom(PKCS8, 'serviceAccountKey.private_key'));
    expect(jwt).toBe(handSigned({ kid: 'key-1' }, claims));
    const verified = await jwtVerify(jwt, publicKey, { algorithms: ['RS256'], currentDate: new Date(now * 1000) });
    expect(verified.protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-1' });
    expect(verified.payload).toEqual(claims);
  });
});

describe('privateKeyFrom', () => {
  it('refuses what jose cannot sign RS256 with, naming the setting, before any request', () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => privateKeyFrom(small, 'app.privateKey')).toThrow(ConfigurationError);
    expect(() => privateKeyFrom(small, 'app.privateKey')).toThrow('app.privateKey must be an RSA key of at least 2048 bits (RS256)');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => privateKeyFrom(ec, 'app.privateKey')).toThrow('app.privateKey must be an RSA key (RS256)');
    expect(() => privateKeyFrom('not a key', 'app.privateKey')).toThrow('app.privateKey is not a PEM private key');
  });
});
