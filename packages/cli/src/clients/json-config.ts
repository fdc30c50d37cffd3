/**
 * Lenient reads of JSON MCP configs: a missing, unparsable or oddly shaped file means "no
 * entries". Status must never fail because a client's config is broken.
 */
import { readFileSync } from 'node:fs';
import { isObject } from '../http/request.js';

export function readJsonObject(path: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function serversOf(container: unknown): Record<string, unknown> {
  if (!isObject(container)) return {};
  return isObject(container.mcpServers) ? container.mcpServers : {};
}

/** The URL of an entry with a direct `url` (terminal agent, editor, native desktop entries). */
export function entryUrl(entry: unknown): string | undefined {
  return isObject(entry) && typeof entry.url === 'string' && entry.url !== '' ? entry.url : undefined;
}
