/**
 * @module mcp-client/errors
 * What a tool error says when an MCP server fails: always the server's id, and what to do when
 * the runtime cannot help itself (a sign-in it cannot do, a server that will not start).
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export function describeMcpError(server: string, error: unknown): string {
  if (error instanceof UnauthorizedError || (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403))) {
    return (
      `MCP server "${server}" demands a sign-in the runtime cannot do (${error.message || 'HTTP 401'}): ` +
      'give it the user’s token through headers(ctx), or OAuth client credentials (oauth)'
    );
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return `MCP server "${server}" did not answer in time`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return `MCP server "${server}" stopped during the call; it is being restarted`;
  const message = error instanceof Error ? error.message : String(error);
  return message.includes(`"${server}"`) ? message : `MCP server "${server}" failed: ${message}`;
}
