/**
 * @module mcp-client/settings
 * What the hosting runtime gives its MCP servers: its environment (for MCP_CLIENT_PRIVATE_HOSTS)
 * and its logger.
 */
import { ConfigurationError } from '../errors.js';
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

/**
 * The decoded bytes of images and sounds one tool result may hand the model (past it, each is
 * described as text): MCP_CLIENT_MAX_MEDIA_BYTES, default 3,750,000 (5 MB once base64-encoded,
 * Anthropic's limit for one image).
 */
export const DEFAULT_MAX_MEDIA_BYTES = 3_750_000;

export function maxMediaBytesSetting(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.MCP_CLIENT_MAX_MEDIA_BYTES?.trim();
  if (!raw) return DEFAULT_MAX_MEDIA_BYTES;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) throw new ConfigurationError(`MCP_CLIENT_MAX_MEDIA_BYTES: "${raw}" is not a whole number of bytes (0 sends no media)`);
  return value;
}
