/**
 * Sending fuzzed requests and judging each answer: no 5xx, no dropped connection, the JSON
 * envelope (or a JSON-RPC error on /mcp) on every error. Shared by the fuzz suites.
 */
import { request as httpRequest } from 'node:http';
import type { BadRequest } from './bad-requests.js';

type Json = Record<string, any>;

export interface Finding {
  label: string;
  request: string;
  status: number | string;
  body: string;
}

/**
 * One request on a connection of its own, so each answer is judged alone (a keep-alive pool
 * would blame the next request for a connection the previous one left).
 */
function exchange(base: string, r: BadRequest): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolveExchange, reject) => {
    const body = r.body instanceof FormData ? new Response(r.body) : undefined;
    const transmit = (payload: Buffer | undefined, extra: Record<string, string>) => {
      // Content-Length always: Node's client sends a DELETE body without any framing otherwise.
      const length = payload ? { 'content-length': String(payload.byteLength) } : {};
      let answered = false;
      const req = httpRequest(`${base}${r.path}`, { method: r.method, headers: { ...r.headers, ...extra, ...length }, agent: false, timeout: 20_000 }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolveExchange({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      // A server may answer (413) before the client has sent the whole body; the write then
      // fails, but the answer is what counts: give it a moment to arrive.
      req.on('error', (error) => setTimeout(() => (answered ? undefined : reject(error)), 200));
      req.end(payload);
    };
    if (body) {
      // A form is encoded the way fetch would, boundary included.
      void body.arrayBuffer().then((buf) => transmit(Buffer.from(buf), { 'content-type': body.headers.get('content-type') ?? '' }), reject);
    } else {
      transmit(typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : undefined, {});
    }
  });
}

async function send(base: string, r: BadRequest): Promise<Finding | undefined> {
  const request = `${r.method} ${r.path.slice(0, 120)}`;
  let res: { status: number; type: string; text: string };
  try {
    res = await exchange(base, r);
  } catch (error) {
    return { label: r.label, request, status: 'no response', body: String(error).slice(0, 200) };
  }
  const { text, type } = res;
  if (res.status >= 500) return { label: r.label, request, status: res.status, body: text.slice(0, 200) };
  if (res.status < 400) return undefined;
  if (r.path.startsWith('/mcp')) {
    // MCP transport errors are JSON-RPC errors, as the protocol requires.
    let body: Json | undefined;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = undefined;
    }
    const isJsonRpc = body?.jsonrpc === '2.0' && typeof body.error?.message === 'string';
    const isEnvelope = typeof body?.detail === 'string';
    return isJsonRpc || isEnvelope ? undefined : { label: r.label, request, status: res.status, body: `not a JSON-RPC error: ${text.slice(0, 160)}` };
  }
  let body: Json | undefined;
  try {
    body = type.includes('json') ? (JSON.parse(text) as Json) : undefined;
  } catch {
    body = undefined;
  }
  if (typeof body?.detail !== 'string' || typeof body.error_code !== 'string') {
    return { label: r.label, request, status: res.status, body: `not the JSON envelope (${type}): ${text.slice(0, 160)}` };
  }
  if (body.detail.length > 500) return { label: r.label, request, status: res.status, body: `detail of ${body.detail.length} characters echoes the input` };
  return undefined;
}

/** Runs the requests a few at a time and collects what went wrong. */
export async function sendAll(base: string, requests: BadRequest[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const finding = await send(base, requests[next++]!);
      if (finding) findings.push(finding);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return findings;
}

/** One line per kind of finding (status, operation, what was sent), with one example request. */
export function summary(findings: Finding[]): string[] {
  const byKind = new Map<string, string>();
  for (const f of findings) {
    const kind = `${f.status} ${f.label}: ${f.body.replace(/\(request [0-9a-f-]+\)/, '').slice(0, 120)}`;
    if (!byKind.has(kind)) byKind.set(kind, `${kind} <- ${f.request}`);
  }
  return [...byKind.values()].slice(0, 40);
}
