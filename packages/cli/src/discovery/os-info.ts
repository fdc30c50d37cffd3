/**
 * The "OS object": what discovery learned about one runtime, in the key order the JSON output
 * promises.
 */
import type { JsonValue } from '../util/json.js';
import type { UrlSource } from './candidates.js';

export type AuthMode = 'none' | 'security_key' | 'jwt' | 'unknown';

export interface McpOAuth {
  authorization_servers: string[];
  resource: string | null;
}

export interface RuntimeInfo {
  url: string;
  name: string | null;
  os_id: string | null;
  version: string | null;
  mcp: { enabled: boolean; path: string | null; oauth: McpOAuth | null };
  /** Any string a newer server reports is passed through; the four known ones are typed. */
  auth_mode: AuthMode | (string & {});
  discovered_via: 'info' | 'probe';
  url_source: UrlSource;
  url_source_file: string | null;
}

export function infoJson(info: RuntimeInfo): JsonValue {
  return {
    url: info.url,
    name: info.name,
    os_id: info.os_id,
    version: info.version,
    mcp: {
      enabled: info.mcp.enabled,
      path: info.mcp.path,
      oauth: info.mcp.oauth ? { authorization_servers: info.mcp.oauth.authorization_servers, resource: info.mcp.oauth.resource } : null,
    },
    auth_mode: info.auth_mode,
    discovered_via: info.discovered_via,
    url_source: info.url_source,
    url_source_file: info.url_source_file,
  };
}

/** The MCP endpoint URL: the base (with its path) plus the advertised path. */
export function mcpUrl(info: RuntimeInfo): string | null {
  if (!info.mcp.enabled || !info.mcp.path) return null;
  const path = info.mcp.path.startsWith('/') ? info.mcp.path : `/${info.mcp.path}`;
  return info.url.replace(/\/+$/, '') + path;
}
