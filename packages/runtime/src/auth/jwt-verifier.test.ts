import { beforeAll, describe, expect, it } from 'vitest';
import { sign, signHs256, signingKey, unsignedToken, writeJwks, type SigningKey } from '../../test/support/jwt.js';
import { ConfigurationError } from '../errors.js';
import { JwtVerifier } from './jwt-verifier.js';

const SECRET = 'a-shared-secret-of-reasonable-length-123';

/** The 401 detail a token is refused with (any other outcome fails the test). */
async function rejection(verifier: JwtVerifier, token: string): Promise<string> {
  const outcome = await verifier.verify(token).then(
    () => undefined,
    (error: unknown) => error as { status?: number; code?: string; message: string },
  );
  expect(outcome).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
  return outcome!.message;
}

describe('JwtVerifier', () => {
  let rsa: SigningKey;
  let rsa2: SigningKey;
  let ec: SigningKey;
  beforeAll(async () => {
    [rsa, rsa2, ec] = await Promise.all([signingKey('RS256', 'r1'), signingKey('RS256', 'r2'), signingKey('ES256', 'e1')]);
  });

  it('verifies RS256 with a PEM public key, and ES256 with its own', async () => {
    const rs = new JwtVerifier({ keys: [rsa.publicPem] });
    expect((await rs.verify(await sign(rsa, { claims: { scopes: ['agents:read'] } }))).scopes).toEqual(['agents:read']);
    const es = new JwtVerifier({ keys: [ec.publicPem], algorithm: 'ES256' });
    expect((await es.verify(await sign(ec))).sub).toBe('user-1');
  });

  it('tries each static key in turn', async () => {
    const verifier = new JwtVerifier({ keys: [rsa2.publicPem, rsa.publicPem] });
    expect((await verifier.verify(await sign(rsa))).sub).toBe('user-1');
  });

  it('picks the JWKS key by kid', async () => {
    const verifier = new JwtVerifier({ keys: [], jwksFile: writeJwks([rsa, rsa2]) });
    expect((await verifier.verify(await sign(rsa2))).sub).toBe('user-1');
    expect((await verifier.verify(await sign(rsa))).sub).toBe('user-1');
    expect(await rejection(verifier, await sign(rsa, { kid: 'r2' }))).toMatch(/^Invalid token: /);
    expect(await rejection(verifier, await sign(ec))).toMatch(/^Invalid token: /);
  });

  it('verifies HS256 with a shared secret', async () => {
    const verifier = new JwtVerifier({ keys: [SECRET], algorithm: 'HS256' });
    expect((await verifier.verify(await signHs256(SECRET))).sub).toBe('user-1');
    expect(await rejection(verifier, await signHs256('another-secret-another-secret'))).toMatch(/signature verification failed/);
  });

  it('accepts exactly one algorithm: none and HS/RS confusion fail', async () => {
    const rs = new JwtVerifier({ keys: [rsa.publicPem] });
    expect(await rejection(rs, unsignedToken({ sub: 'x' }))).toMatch(/^Invalid token: /);
    // The classic attack: an HS256 token whose secret is the RSA public key.
    expect(await rejection(rs, await signHs256(rsa.publicPem))).toMatch(/alg/);
    expect(await rejection(rs, await sign(ec))).toMatch(/alg/);
    expect(() => new JwtVerifier({ keys: [rsa.publicPem], algorithm: 'HS256' })).toThrow(ConfigurationError);
    expect(() => new JwtVerifier({ keys: [ec.publicPem], algorithm: 'RS256' })).toThrow(/ec key/);
  });

  it('checks expiry and not-before with a small leeway', async () => {
    const verifier = new JwtVerifier({ keys: [rsa.publicPem] });
    expect(await rejection(verifier, await sign(rsa, { expiresIn: -60 }))).toBe('Token has expired');
    expect((await verifier.verify(await sign(rsa, { expiresIn: -5 }))).sub).toBe('user-1');
    expect(await rejection(verifier, await sign(rsa, { notBefore: 120 }))).toMatch(/nbf/);
  });

  it('checks the audience when one is configured', async () => {
    const verifier = new JwtVerifier({ keys: [rsa.publicPem], audience: 'runtime-1' });
    expect((await verifier.verify(await sign(rsa, { claims: { aud: ['other', 'runtime-1'] } }))).sub).toBe('user-1');
    expect(await rejection(verifier, await sign(rsa, { claims: { aud: 'other' } }))).toBe('Invalid token audience - token not valid for this runtime');
    expect(await rejection(verifier, await sign(rsa))).toMatch(/aud/);
  });

  it('refuses garbage without throwing anything but a 401', async () => {
    const verifier = new JwtVerifier({ keys: [rsa.publicPem] });
    for (const junk of ['x', 'a.b.c', 'eyJ.eyJ.', '....', `${'A'.repeat(50)}.${'B'.repeat(50)}.${'C'.repeat(50)}`, 'é.é.é']) {
      expect(await rejection(verifier, junk)).toMatch(/^Invalid token/);
    }
  });

  it('remembers verified tokens until they expire', async () => {
    const verifier = new JwtVerifier({ keys: [rsa.publicPem] });
    const token = await sign(rsa, { expiresIn: 60 });
    const now = Date.now();
    expect((await verifier.verify(token, now)).sub).toBe('user-1');
    expect((await verifier.verify(token, now + 1000)).sub).toBe('user-1');
    // Past its expiry the cached entry no longer counts, and verification fails.
    await expect(verifier.verify(token, now + 120_000)).rejects.toMatchObject({ message: 'Token has expired' });
  });

  it('fails at start on an unusable configuration', () => {
    expect(() => new JwtVerifier({ keys: [] })).toThrow(/JWT_VERIFICATION_KEY/);
    expect(() => new JwtVerifier({ keys: ['not a key'] })).toThrow(/not a PEM public key/);
    expect(() => new JwtVerifier({ keys: [], jwksFile: '/nonexistent/jwks.json' })).toThrow(/JWKS file not found/);
  });
});
