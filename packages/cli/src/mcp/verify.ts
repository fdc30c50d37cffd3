/**
 * The connection check connect runs after writing an entry: a real MCP `initialize`, the
 * `initialized` notification, then `tools/list`, over streamable HTTP (JSON or SSE answers).
 * A few JSON-RPC POSTs on the CLI's own HTTP client; the MCP SDK would add far more code to
 * the bundle than the handshake needs. It never throws: every outcome is a result.
 */
import { httpRequest, type HttpResponse } from '../http/request.js';
import { isObject, parseJson, type JsonValue } from '../util/json.js';
import { CLI_VERSION } from '../version.js';

export const MCP_TIMEOUT_MS = 15_000;
export const MCP_PROTOCOL_VERSION = '2025-03-26';

export interface VerifyResult {
  ok: boolean;
  tools: string[];
  status_code: number | null;
  error: string | null;
  oauth_challenge: boolean;
}

export function verifyJson(v: VerifyResult): JsonValue {
  return { ok: v.ok, tools: v.tools.length, status_code: v.status_code, error: v.error, oauth_challenge: v.oauth_challenge };
}

function header(res: HttpResponse, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The JSON-RPC message of a response: the whole JSON body, or the first JSON `data:` event. */
export function messageOf(contentType: string | undefined, body: string): Record<string, unknown> | undefined {
  if (contentType?.includes('text/event-stream')) {
    for (const line of body.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      const value = parseJson(line.slice(5).trim());
      if (isObject(value)) return value;
    }
    return undefined;
  }
  const value = parseJson(body);
  return isObject(value) ? value : undefined;
}

const fail = (error: string, status: number | null): VerifyResult => ({ ok: false, tools: [], status_code: status, error, oauth_challenge: false });

export async function verifyMcp(url: string, token: string | undefined, expectOAuthChallenge: boolean, env: NodeJS.ProcessEnv): Promise<VerifyResult> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const post = (body: unknown): Promise<HttpResponse> => httpRequest({ method: 'POST', url, headers, body: JSON.stringify(body), timeoutMs: MCP_TIMEOUT_MS, env });
  try {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'svcctl', version: CLI_VERSION } },
    });
    if (init.status === 401 || init.status === 403) {
      if (!expectOAuthChallenge) return fail(`The MCP endpoint rejected the credential (HTTP ${init.status}).`, init.status);
      // A challenge is what lets an application start its sign-in; without it, sign-in cannot work.
      if (header(init, 'www-authenticate') !== undefined) return { ok: true, tools: [], status_code: init.status, error: null, oauth_challenge: true };
      return fail('The MCP endpoint rejected the request without an OAuth challenge (no WWW-Authenticate header); clients will not be able to sign in.', init.status);
    }
    if (init.status >= 400) return fail(`MCP initialize failed with HTTP ${init.status}.`, init.status);
    const initMessage = messageOf(header(init, 'content-type'), init.body);
    if (!initMessage || !('result' in initMessage)) return fail('MCP initialize returned an unexpected payload.', init.status);
    const session = header(init, 'mcp-session-id');
    if (session !== undefined) headers['mcp-session-id'] = session;
    // The notification's answer carries nothing we need (202 on a conforming server).
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    if (list.status >= 400) return fail(`MCP tools/list failed with HTTP ${list.status}.`, list.status);
    const listMessage = messageOf(header(list, 'content-type'), list.body);
    if (!listMessage || !('result' in listMessage)) return fail('MCP tools/list returned an unexpected payload.', list.status);
    const result = listMessage.result;
    const tools = isObject(result) && Array.isArray(result.tools) ? result.tools.filter(isObject).map((t) => (typeof t.name === 'string' ? t.name : '')) : [];
    return { ok: true, tools, status_code: list.status, error: null, oauth_challenge: false };
  } catch (error) {
    return fail(`Could not reach the MCP endpoint: ${error instanceof Error ? error.message : String(error)}`, null);
  }
}

/**
 * One cheap authenticated request: does the runtime's MCP endpoint accept this token? An MCP
 * `initialize` is what a client sends first, so the answer is the client's own. True for 2xx,
 * false for 401/403, null when the answer says nothing about the token (other statuses, no
 * connection).
 */
export async function checkToken(url: string, token: string, env: NodeJS.ProcessEnv): Promise<boolean | null> {
  try {
    const res = await httpRequest({
      method: 'POST',
      url,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'svcctl', version: CLI_VERSION } },
      }),
      timeoutMs: MCP_TIMEOUT_MS,
      env,
    });
    if (res.status >= 200 && res.status < 300) return true;
    if (res.status === 401 || res.status === 403) return false;
    return null;
  } catch {
    return null;
  }
}
