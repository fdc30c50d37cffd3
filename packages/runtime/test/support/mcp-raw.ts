/**
 * MCP over plain HTTP, one JSON-RPC message per POST, for tests that need what an SDK client
 * hides: chosen request ids, a notification sent to another runtime, a connection dropped on
 * purpose.
 */
import { parseSse } from './sse.js';

type Json = Record<string, any>;

const ACCEPT = 'application/json, text/event-stream';

function headersFor(sessionId: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', accept: ACCEPT, ...(sessionId ? { 'mcp-session-id': sessionId } : {}), ...extra };
}

/** Initializes a client session; answers the session id the server issued. */
export async function initialize(mcpUrl: string, extra: Record<string, string> = {}): Promise<string | undefined> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: headersFor(undefined, extra),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
    }),
  });
  await res.text();
  if (!res.ok) throw new Error(`initialize answered ${res.status}`);
  const sessionId = res.headers.get('mcp-session-id') ?? undefined;
  await notify(mcpUrl, sessionId, 'notifications/initialized', undefined, extra);
  return sessionId;
}

export async function notify(mcpUrl: string, sessionId: string | undefined, method: string, params?: Json, extra: Record<string, string> = {}): Promise<number> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: headersFor(sessionId, extra),
    body: JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }),
  });
  await res.text();
  return res.status;
}

export interface PendingCall {
  /** The JSON-RPC response (rejects when the connection was dropped). */
  result: Promise<Json>;
  /** Progress notifications received so far. */
  progress: string[];
  /** Hangs up the HTTP request. */
  drop(): void;
}

/** Calls a tool and keeps the SSE answer open until the result arrives. */
export function callTool(
  mcpUrl: string,
  sessionId: string | undefined,
  id: number | string,
  name: string,
  args: Json,
  extra: Record<string, string> = {},
): PendingCall {
  const controller = new AbortController();
  const progress: string[] = [];
  const result = (async () => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: headersFor(sessionId, extra),
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: `p-${id}` } } }),
      signal: controller.signal,
    });
    if ((res.headers.get('content-type') ?? '').includes('application/json')) return (await res.json()) as Json;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const messages = parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2)).map((e) => e.data as Json);
      progress.splice(0, progress.length, ...messages.filter((m) => m.method === 'notifications/progress').map((m) => String(m.params.message)));
      const answer = messages.find((m) => m.id === id);
      if (answer) return answer;
    }
    throw new Error('the stream ended without a result');
  })();
  // Callers that drop the connection on purpose still await `result` to see it reject.
  result.catch(() => {});
  return { result, progress, drop: () => controller.abort() };
}
