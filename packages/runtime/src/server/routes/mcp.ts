/**
 * @module server/routes/mcp
 * The MCP endpoint (streamable HTTP, stateless): each POST gets a fresh server and transport,
 * so any runtime instance can answer any request and no session state needs cleaning up.
 * Cancellation still reaches the call it names: see mcp/in-flight.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CancelledNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../context.js';
import { errorResponse } from '../errors.js';
import { rawRoute, scoped, type RouteDefinition } from '../route.js';
import { callerFor } from '../../mcp/caller.js';
import { connectionKey, InFlightCalls, requestDigest } from '../../mcp/in-flight.js';
import { registerMemoryTools } from '../../mcp/memory-tools.js';
import { registerTools } from '../../mcp/mcp-tools.js';
import { registerGetRun } from '../../mcp/get-run-tool.js';
import { plainToolListing } from '../../mcp/tool-listing.js';
import type { McpCaller } from '../../mcp/tool-gate.js';

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

/** A JSON-RPC error as the streamable HTTP transport answers one (no request id is known). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function isInitialize(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize';
}

export function mcpRoutes(ctx: ServerContext, options: McpRouteOptions = {}): RouteDefinition[] {
  if (!ctx.mcp.enabled || !ctx.mcp.path) return [];
  const open = ctx.authMode === 'none' && ctx.mcp.oauth === null;
  // Shared by every request of this endpoint: a cancel notification arrives in a request of its own.
  const inFlight = new InFlightCalls();

  const handler = async (c: Context<AppEnv>): Promise<Response> => {
    if (open && !hostAllowed(c.req.header('host'), options.allowedHosts ?? [])) {
      return errorResponse('BAD_REQUEST', 'Host not allowed: this runtime requires no credentials, so its MCP endpoint only answers loopback hosts');
    }
    const principal = c.get('principal');
    const method = c.req.method;
    if (method === 'DELETE') {
      // The client ends its session: whatever it still waits for is of no use to anyone.
      inFlight.cancelConnection(connectionKey(principal, c.req.header('mcp-session-id')), 'the MCP client ended its session');
      return c.body(null, 200);
    }
    if (method !== 'POST') {
      // No server-initiated stream: each answer travels on the POST that asked for it, so a GET
      // stream would stay open with nothing to say. 405 is how the transport says so.
      return jsonRpcError(405, -32000, 'Method not allowed: this endpoint answers POST (and DELETE to end a session)', { allow: 'POST, DELETE' });
    }

    let body: unknown;
    if ((c.req.header('content-type') ?? '').toLowerCase().includes('application/json')) {
      try {
        body = await c.req.json();
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the request body is not valid JSON');
      }
    }
    // Session ids are correlation keys, not server state: any runtime accepts any id, and the id
    // lets a later notifications/cancelled name the call it cancels without colliding with
    // another client's request ids.
    const initializing = Array.isArray(body) ? body.some(isInitialize) : isInitialize(body);
    const sessionId = initializing ? randomUUID() : c.req.header('mcp-session-id');
    const connection = connectionKey(principal, sessionId);

    const server = new McpServer({ name: ctx.name, version: ctx.version }, { capabilities: { tools: {} } });
    const caller = options.caller?.(c) ?? callerFor(ctx.auth, principal, { alwaysEnforce: ctx.mcp.oauth !== null });
    registerTools(server, ctx, { caller, connection, inFlight, httpSignal: c.req.raw.signal });
    registerMemoryTools(server, ctx.memories, caller);
    registerGetRun(server, ctx, caller);

    // After every tool is registered: it wraps the listing McpServer installed.
    plainToolListing(server);
    server.server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
      const { requestId, reason } = notification.params;
      if (requestId === undefined) return;
      const digest = requestDigest(connection, requestId);
      const why = reason ?? 'cancelled by the MCP client';
      // The call runs in this process, or in another runtime sharing the database.
      if (!inFlight.cancel(digest, why)) await ctx.runner.cancelMcpRequest(digest, why);
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, body === undefined ? undefined : { parsedBody: body });
    // The server lives as long as the response: a streamed reply closes it when the stream ends.
    if (!response.body) void server.close();
    if (!initializing || !response.ok || !sessionId) return response;
    const headers = new Headers(response.headers);
    headers.set('mcp-session-id', sessionId);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
  // Authentication happens in the REST auth layer like any route; each tool then checks the
  // scopes of its REST twin, so the endpoint itself needs no scope.
  return [rawRoute(scoped(), 'ALL', ctx.mcp.path, handler)];
}
