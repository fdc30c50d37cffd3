/**
 * @module server/auth-guard
 * Authentication and authorization per route, attached at registration to each route that is
 * not public, rather than as one catch-all middleware, so public routes (`/health`) pay nothing.
 * Routes without request validation get it folded into their handler: when the caller is known
 * at once (a cached token, the key) the route answers synchronously, as fast as an open one.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Handler, MiddlewareHandler } from 'hono';
import { RuntimeError } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { clientAddress } from './client-address.js';
import type { AppEnv, ServerContext } from './context.js';
import type { RouteEntry } from './route.js';

export interface GuardOptions {
  /** Replaces the standard 401 (the OAuth-protected MCP endpoint answers with a challenge). */
  unauthenticated?: (c: Context<AppEnv>, error: RuntimeError) => Response;
}

export interface Guard {
  /** As middleware, before validation. */
  middleware: MiddlewareHandler<AppEnv>;
  /** Folded into a handler that validates nothing. */
  wrap(handler: Handler<AppEnv>): Handler<AppEnv>;
}

/**
 * The Authorization header, from Node's own request when served by Node: reading it through
 * `c.req.header` makes @hono/node-server build a full fetch Request, which costs a third of a
 * small authenticated request's time.
 */
function authorization(c: Context<AppEnv>): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming?.headers) {
    const value = incoming.headers.authorization;
    return Array.isArray(value) ? value[0] : value;
  }
  return c.req.header('authorization');
}

export function authGuard(ctx: ServerContext, entry: RouteEntry, options: GuardOptions = {}): Guard | undefined {
  const { access } = entry;
  if (access.kind !== 'scoped') return undefined;
  const required = access.scopes;
  const listing = access.listing === true;

  /** Records who calls and what they may see; throws 403 when they may not call this route. */
  const admit = (c: Context<AppEnv>, principal: Principal): void => {
    c.set('principal', principal);
    c.set('visible', ctx.auth.authorize(principal, c.req.method, c.req.path, required, listing));
  };
  /** The full path: verification, failure counting, 401s. A Response when the caller is refused. */
  const authenticate = async (c: Context<AppEnv>): Promise<Response | undefined> => {
    try {
      admit(c, await ctx.auth.authenticate(authorization(c), () => clientAddress(c, ctx.trustedProxies)));
      return undefined;
    } catch (error) {
      if (options.unauthenticated && RuntimeError.isInstance(error) && error.status === 401) return options.unauthenticated(c, error);
      throw error;
    }
  };

  return {
    middleware: async (c, next) => {
      const refused = await authenticate(c);
      if (refused) return refused;
      await next();
    },
    wrap: (handler) => (c, next) => {
      const known = ctx.auth.authenticateCached(authorization(c));
      if (known) {
        admit(c, known);
        return handler(c, next);
      }
      return authenticate(c).then((refused) => refused ?? handler(c, next));
    },
  };
}
