/**
 * @module mcp-client/settings
 * What the hosting runtime gives its MCP servers: its environment (for MCP_CLIENT_PRIVATE_HOSTS)
 * and its logger.
 */
import type { Logger } from '../util/logger.js';

export interface McpClientHost {
  env: Readonly<Record<string, string | undefined>>;
  log?: Logger;
}

/**
 * MCP_CLIENT_PRIVATE_HOSTS: host names (comma-separated) whose HTTP MCP servers may be on
 * internal addresses (loopback, private networks), or `*` for any host; unset: none.
 */
export function privateHostsSetting(env: Readonly<Record<string, string | undefined>>): boolean | string[] {
  const raw = env.MCP_CLIENT_PRIVATE_HOSTS?.trim();
  if (!raw) return false;
  if (raw === '*') return true;
  return raw.split(',').map((h) => h.trim()).filter((h) => h !== '');
}
