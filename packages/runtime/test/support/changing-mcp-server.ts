/**
 * A stdio MCP server (the official SDK's McpServer) whose tool list changes on request: its tool
 * `add_tool` registers a tool `added` at once, and the SDK sends notifications/tools/list_changed.
 *
 *   node --import tsx test/support/changing-mcp-server.ts
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'changing', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.registerTool('add_tool', { description: 'Adds the tool "added"', inputSchema: {} }, () => {
  server.registerTool('added', { description: 'A tool added at run time', inputSchema: { word: z.string() } }, ({ word }) => ({ content: [{ type: 'text', text: `added says ${word}` }] }));
  return { content: [{ type: 'text', text: 'added' }] };
});
await server.connect(new StdioServerTransport());
