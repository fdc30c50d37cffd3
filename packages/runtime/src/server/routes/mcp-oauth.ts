/**
 * @module server/routes/mcp-oauth
 * OAuth-protected MCP (RFC 9728): clients that reach `/mcp` without a valid bearer get a
 * challenge pointing at the protected-resource metadata, which names the authorization
 * server(s) where they sign in. The bearer they come back with is verified like any other.
 */
import type { Context } from 'hono';
import { bearerFrom } from '../../auth/credentials.js';
import { realmFor } from '../../auth/challenge.js';
import type { AppEnv, ServerContext } from '../context.js';
import { challengeFor } from '../errors.js';
import { publicOrigin } from '../public-origin.js';
import { PUBLIC, rawRoute, type RouteDefinition, type RouteEntry } from '../route.js';
import type { RuntimeError } from '../../errors.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function metadataUrl(ctx: ServerContext, c: Context<AppEnv>): string {
  return `${publicOrigin(ctx, c)}${WELL_KNOWN}${ctx.mcp.path ?? ''}`;
}

export function mcpOAuthRoutes(ctx: ServerContext): RouteDefinition[] {
  const oauth = ctx.mcp.oauth;
  if (!oauth || !ctx.mcp.path) return [];
  return [
    rawRoute(PUBLIC, 'GET', `${WELL_KNOWN}${ctx.mcp.path}`, (c) =>
      c.json({
        resource: oauth.resource ?? `${publicOrigin(ctx, c)}${ctx.mcp.path}`,
        authorization_servers: oauth.authorization_servers ?? [],
        bearer_methods_supported: ['header'],
      }),
    ),
  ];
}

/**
 * For the MCP route of an OAuth-protected runtime: the 401 that starts a client's sign-in. The
 * challenge is the standard one plus `resource_metadata`; a request without a credential gets
 * no `error` (RFC 6750 §3.1), a refused token gets `invalid_token`. The body repeats that in
 * OAuth's own terms (`error`, `error_description`) rather than the REST envelope.
 */
export function mcpChallenge(ctx: ServerContext, entry: RouteEntry): ((c: Context<AppEnv>, error: RuntimeError) => Response) | undefined {
  if (!ctx.mcp.oauth || entry.path !== ctx.mcp.path) return undefined;
  const realm = realmFor(ctx.name);
  return (c, error) => {
    const sent = bearerFrom(c.req.header('authorization')) !== undefined;
    const body = sent ? { error: 'invalid_token', error_description: error.message } : { error_description: error.message };
    return c.json(body, 401, { 'www-authenticate': challengeFor(c, realm, error.message, metadataUrl(ctx, c)) });
  };
}
