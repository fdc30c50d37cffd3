/**
 * @module mcp/tool-listing
 * What `tools/list` shows clients, made plain for those that render or check schemas strictly
 * (the MCP Inspector's `--strict` mode, clients building forms or model tool definitions):
 *
 * - `additionalProperties: {}` (what zod writes for a loose object) becomes `true`, its meaning
 *   said outright;
 * - `type: ["string", "null"]` (zod's nullable) becomes `anyOf: [{type: "string"}, {type: "null"}]`,
 *   which form builders and model providers accept where a list of types is refused.
 *
 * And the server does not advertise `tools.listChanged`: its tools are fixed, so it never sends
 * the notification (the SDK's McpServer claims it by default).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

export function plainToolListing(server: McpServer): void {
  server.server.registerCapabilities({ tools: { listChanged: false } });
  // The SDK keeps its handlers in a map by method; the one McpServer installed is wrapped.
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const listing = handlers?.get('tools/list');
  if (!handlers || !listing) throw new Error('the MCP SDK no longer keeps tools/list where plainToolListing expects it');
  handlers.set('tools/list', async (request, extra) => plainSchema(await listing(request, extra)));
}

/** The value with every schema inside it made plain (see the module notes). */
export function plainSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainSchema);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'additionalProperties' && typeof inner === 'object' && inner !== null && !Array.isArray(inner) && Object.keys(inner).length === 0) {
      out[key] = true;
    } else if (key === 'type' && Array.isArray(inner)) {
      out.anyOf = inner.map((type) => ({ type }));
    } else {
      out[key] = plainSchema(inner);
    }
  }
  return out;
}
