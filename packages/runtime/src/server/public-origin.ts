/**
 * @module server/public-origin
 * Where clients reach this runtime: the origin of the configured public URL when there is one
 * (the OAuth-protected MCP endpoint's `resource`), else the origin the request came to.
 */
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from './context.js';

export function configuredOrigin(ctx: ServerContext): string | undefined {
  const configured = ctx.mcp.oauth?.resource;
  return configured ? new URL(configured).origin : undefined;
}

export function requestOrigin(c: Context<AppEnv>): string {
  return new URL(c.req.url).origin;
}

export function publicOrigin(ctx: ServerContext, c: Context<AppEnv>): string {
  return configuredOrigin(ctx) ?? requestOrigin(c);
}
