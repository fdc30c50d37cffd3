/**
 * Asks one candidate URL whether a runtime answers there, and what it is. Newer runtimes say
 * everything in GET /info; older ones are probed (POST /mcp for MCP, GET /config without
 * credentials for the auth mode).
 */
import { CliError } from '../errors.js';
import { httpRequest, joinUrl } from '../http/request.js';
import { isObject, parseJson } from '../util/json.js';
import { sourceNote, type Candidate } from './candidates.js';
import type { AuthMode, McpOAuth, RuntimeInfo } from './os-info.js';

export const PROBE_TIMEOUT_MS = 5000;

function assertUsableUrl(c: Candidate): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(c.url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw new CliError('INVALID_URL', `Invalid runtime URL: ${c.url}${sourceNote(c)}.`, {
      hint: c.sourceFile && c.source === 'env-file' ? `Fix the URL in ${c.sourceFile} or pass --url.` : 'Fix the URL or pass --url.',
    });
  }
}

async function getJsonObject(url: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await httpRequest({ method: 'GET', url, timeoutMs: PROBE_TIMEOUT_MS, env, signal });
    if (res.status !== 200) return undefined;
    const body = parseJson(res.body);
    return isObject(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function parseOAuth(value: unknown): McpOAuth | null {
  if (!isObject(value)) return null;
  const servers = Array.isArray(value.authorization_servers)
    ? value.authorization_servers.filter((s): s is string => typeof s === 'string')
    : [];
  return { authorization_servers: servers, resource: nonEmptyString(value.resource) };
}

function versionOf(info: Record<string, unknown>): string | null {
  const v = info.version ?? info.runtime_version;
  return v === undefined || v === null ? null : String(v);
}

async function probeMcp(base: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    const res = await httpRequest({
      method: 'POST',
      url: joinUrl(base, '/mcp'),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      timeoutMs: PROBE_TIMEOUT_MS,
      env,
    });
    return res.status !== 404;
  } catch {
    return false;
  }
}

/** How an unauthenticated GET /config answers reveals the REST auth mode of older servers. */
export async function probeAuthMode(base: string, env: NodeJS.ProcessEnv): Promise<AuthMode> {
  try {
    const res = await httpRequest({ method: 'GET', url: joinUrl(base, '/config'), timeoutMs: PROBE_TIMEOUT_MS, env });
    if (res.status === 200) return 'none';
    if (res.status !== 401) return 'unknown';
    const body = parseJson(res.body);
    const detail = isObject(body) && typeof body.detail === 'string' ? body.detail : '';
    return /required/i.test(detail) ? 'security_key' : 'jwt';
  } catch {
    return 'unknown';
  }
}

/** The runtime at this candidate, or undefined when nothing live answers there. */
export async function probeCandidate(c: Candidate, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<RuntimeInfo | undefined> {
  assertUsableUrl(c);
  const health = await getJsonObject(joinUrl(c.url, '/health'), env, signal);
  if (!health) return undefined;
  const info = (await getJsonObject(joinUrl(c.url, '/info'), env)) ?? {};
  const provenance = { url_source: c.source, url_source_file: c.sourceFile };
  if (isObject(info.mcp) && typeof info.auth_mode === 'string') {
    const enabled = Boolean(info.mcp.enabled);
    return {
      url: c.url,
      name: nonEmptyString(info.name),
      os_id: nonEmptyString(info.os_id),
      version: versionOf(info),
      mcp: { enabled, path: nonEmptyString(info.mcp.path) ?? (enabled ? '/mcp' : null), oauth: parseOAuth(info.mcp.oauth) },
      auth_mode: info.auth_mode,
      discovered_via: 'info',
      ...provenance,
    };
  }
  const [mcpEnabled, authMode] = await Promise.all([probeMcp(c.url, env), probeAuthMode(c.url, env)]);
  return {
    url: c.url,
    name: null,
    os_id: null,
    version: versionOf(info),
    mcp: { enabled: mcpEnabled, path: mcpEnabled ? '/mcp' : null, oauth: null },
    auth_mode: authMode,
    discovered_via: 'probe',
    ...provenance,
  };
}
