/**
 * What authorization costs: GET /config open, with an RS256 JWT (scopes checked), and with a
 * service-account token (verified once, then served from the revocation-coherent cache), measured
 * in one run.
 *   npx tsx --conditions=source bench/auth.ts
 */
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { load, printTable } from './support/load.js';
import { startServer } from './support/servers.js';

export async function benchAuth(): Promise<void> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwt = (scopes: string[]) =>
    new SignJWT({ sub: 'bench', scopes }).setProtectedHeader({ alg: 'RS256' }).setIssuedAt().setExpirationTime('1h').sign(privateKey);

  const open = await startServer('auth-server.ts', { AUTHORIZATION_ENABLED: '', JWT_VERIFICATION_KEY: '', OS_SECURITY_KEY: '' });
  const securedEnv = { AUTHORIZATION_ENABLED: 'true', JWT_VERIFICATION_KEY: await exportSPKI(publicKey), OS_SECURITY_KEY: '' };
  const secured = await startServer('auth-server.ts', securedEnv);
  // The same runtime with the token cache off: one database read per request, as before caching.
  const uncached = await startServer('auth-server.ts', { ...securedEnv, SERVICE_ACCOUNT_CACHE_TTL_SECONDS: '0' });
  try {
    const admin = await jwt(['agent_os:admin']);
    const mint = async (url: string) => {
      const minted = await fetch(`${url}/service-accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench', scopes: [{ scope: 'config:read' }] }),
      });
      return ((await minted.json()) as { token: string }).token;
    };
    const pat = await mint(secured.url);
    const uncachedPat = await mint(uncached.url);
    const reader = await jwt(['config:read']);

    const baseline = await load('GET /config open', `${open.url}/config`);
    const withJwt = await load('GET /config, RS256 JWT', `${secured.url}/config`, { headers: { authorization: `Bearer ${reader}` } });
    const withPat = await load('GET /config, svc_pat_ token', `${secured.url}/config`, { headers: { authorization: `Bearer ${pat}` } });
    const withUncachedPat = await load('GET /config, svc_pat_ token, cache off', `${uncached.url}/config`, {
      headers: { authorization: `Bearer ${uncachedPat}` },
    });
    const health = await load('GET /health (public) on the secured runtime', `${secured.url}/health`);
    printTable('Auth: the same route open and protected', [baseline, withJwt, withPat, withUncachedPat, health], baseline);
  } finally {
    await Promise.all([open.stop(), secured.stop(), uncached.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAuth();
