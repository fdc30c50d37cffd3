/**
 * @module mcp/mcp-route
 * The MCP endpoint (streamable HTTP, stateless): each POST gets a fresh server and transport,
 * so any runtime instance can answer any request and no session state needs cleaning up.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../server/context.js';
import { errorResponse } from '../server/errors.js';
import { rawRoute, scoped, type RouteDefinition } from '../server/route.js';
import { callerFor } from './caller.js';
import { registerTools } from './mcp-tools.js';
import type { McpCaller } from './tool-gate.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostname(hostHeader: string): string {
  // "[::1]:7777" -> "[::1]", "localhost:7777" -> "localhost"
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  return hostHeader.split(':')[0]!.toLowerCase();
}

/**
 * An open runtime (no credentials required) must not be drivable by a web page through DNS
 * rebinding: only loopback Host names (and configured extra hosts) may reach its MCP endpoint.
 */
export function hostAllowed(hostHeader: string | undefined, extraHosts: readonly string[]): boolean {
  if (!hostHeader) return false;
  const host = hostname(hostHeader);
  if (LOOPBACK_HOSTS.has(host)) return true;
  return extraHosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1).toLowerCase()) : host === h.toLowerCase()));
}

export interface McpRouteOptions {
  /** Builds the caller (identity and tool gate) for a request; defaults to the authenticated principal's. */
  caller?: (c: Context<AppEnv>) => McpCaller;
  /** Host names besides loopback that an open runtime accepts. */
  allowedHosts?: readonly string[];
}

export function mcpRoutes(ctx: ServerContext, options: McpRouteOptions = {}): RouteDefinition[] {
  if (!ctx.mcp.enabled || !ctx.mcp.path) return [];
  const open = ctx.authMode === 'none' && ctx.mcp.oauth === null;
  const handler = async (c: Context<AppEnv>): Promise<Response> => {
    if (open && !hostAllowed(c.req.header('host'), options.allowedHosts ?? [])) {
      return errorResponse('BAD_REQUEST', 'Host not allowed: this runtime requires no credentials, so its MCP endpoint only answers loopback hosts');
    }
    const server = new McpServer({ name: ctx.name, version: ctx.version }, { capabilities: { tools: {} } });
    const caller = options.caller?.(c) ?? callerFor(ctx.auth, c.get('principal'), { alwaysEnforce: ctx.mcp.oauth !== null });
    registerTools(server, ctx, caller);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    // The server lives as long as the response: a streamed reply closes it when the stream ends.
    if (!response.body) void server.close();
    return response;
  };
  // Authentication happens in the REST auth layer like any route; each tool then checks the
  // scopes of its REST twin, so the endpoint itself needs no scope.
  return [rawRoute(scoped(), 'ALL', ctx.mcp.path, handler)];
}
