/**
 * @module server/auth-guard
 * The per-route auth middleware. It is attached at registration to each route that is not
 * public, rather than as one catch-all middleware, so public routes (`/health`) pay nothing.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { RuntimeError } from '../errors.js';
import { clientAddress } from './client-address.js';
import type { AppEnv, ServerContext } from './context.js';
import type { RouteEntry } from './route.js';

export interface GuardOptions {
  /** Replaces the standard 401 (the OAuth-protected MCP endpoint answers with a challenge). */
  unauthenticated?: (c: Context<AppEnv>, error: RuntimeError) => Response;
}

export function authGuard(ctx: ServerContext, entry: RouteEntry, options: GuardOptions = {}): MiddlewareHandler<AppEnv> | undefined {
  const { access } = entry;
  if (access.kind !== 'scoped') return undefined;
  const required = access.scopes;
  const listing = access.listing === true;
  return async (c, next) => {
    try {
      const principal = await ctx.auth.authenticate(c.req.header('authorization'), clientAddress(c, ctx.trustedProxies));
      c.set('principal', principal);
      c.set('visible', ctx.auth.authorize(principal, c.req.method, c.req.path, required, listing));
    } catch (error) {
      if (options.unauthenticated && RuntimeError.isInstance(error) && error.status === 401) return options.unauthenticated(c, error);
      throw error;
    }
    await next();
  };
}
