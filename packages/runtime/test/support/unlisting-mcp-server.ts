/**
 * A stdio MCP server (the official SDK's low-level Server) that stops listing its tools on
 * request: its tool `break_listing` makes every later `tools/list` answer an error, and says the
 * list changed, so a client that refreshes finds it cannot.
 *
 *   node --import tsx test/support/unlisting-mcp-server.ts
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

let broken = false;
const server = new Server({ name: 'unlisting', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, () => {
  if (broken) throw new Error('the tool registry is down');
  return { tools: [{ name: 'break_listing', description: 'Stops listing tools', inputSchema: { type: 'object', properties: {} } }] };
});
server.setRequestHandler(CallToolRequestSchema, async () => {
  broken = true;
  await server.sendToolListChanged();
  return { content: [{ type: 'text', text: 'broken' }] };
});
await server.connect(new StdioServerTransport());
