/**
 * @module mcp-client
 * Agents using MCP servers: `mcpServer(...)` and its options.
 */
export { mcpServer, McpServerSource } from './mcp-server.js';
export type { McpServerOptions, StdioMcpServerOptions, HttpMcpServerOptions, McpHeaders, McpHeadersContext } from './options.js';
