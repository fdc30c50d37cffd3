/**
 * A real OpenID provider (oidc-provider) on loopback that issues RS256 JWT access tokens
 * through the client_credentials grant, for a resource server identified by `audience`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { Provider } from 'oidc-provider';

export interface OidcServer {
  issuer: string;
  /** Requests an access token with the client_credentials grant. */
  token(scope: string): Promise<string>;
  /** The provider's public JWKS, as it serves it. */
  jwks(): Promise<unknown>;
  close(): Promise<void>;
}

export const CLIENT_ID = 'svc-runtime-client';
export const CLIENT_SECRET = 'a-client-secret-long-enough-for-hs256-0123456789';

export async function startOidcProvider(options: { audience: string; scopes: string[] }): Promise<OidcServer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), kid: 'oidc-signing', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scope = options.scopes.join(' ');
  const provider = new Provider(issuer, {
    clients: [
      { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope },
    ],
    scopes: ['openid', ...options.scopes],
    jwks: { keys: [signingJwk] },
    ttl: { ClientCredentials: 600 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope, audience: options.audience, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
      },
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    async token(requested) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: requested, resource: options.audience }),
      });
      const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token request failed: ${body.error} ${body.error_description}`);
      return body.access_token;
    },
    async jwks() {
      return (await fetch(`${issuer}/jwks`)).json();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
