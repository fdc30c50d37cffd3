/**
 * A loopback HTTP server for the remote content source tests: each test gives the handler that
 * speaks the provider's wire format, and the server records every request (method, path and
 * query, headers, body) so tests can assert what the adapter sent: auth headers, paging
 * parameters, API versions. `proxy` forwards to another server (s3rver) with a hook that may
 * answer instead, to inject throttling.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (request: SeenRequest, response: ServerResponse) => unknown;

export interface Loopback {
  url: string;
  seen: SeenRequest[];
  handler: Handler;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startLoopback(handler: Handler): Promise<Loopback> {
  const seen: SeenRequest[] = [];
  const loopback = { seen, handler } as Loopback;
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const parsed = new URL(request.url ?? '/', 'http://loopback');
      const entry: SeenRequest = { method: request.method ?? 'GET', url: request.url ?? '/', path: parsed.pathname, query: parsed.searchParams, headers: request.headers, body };
      seen.push(entry);
      try {
        await loopback.handler(entry, response);
      } catch (error) {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  loopback.url = `http://127.0.0.1:${port}`;
  loopback.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return loopback;
}

/** Answers JSON. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** Forwards a recorded request to `target` and pipes the answer back; the Host header is kept, since a signature (SigV4) covers it. */
export function forward(target: string, request: SeenRequest, response: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url, target);
    const outgoing = httpRequest(url, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
      answer.on('end', resolve);
      answer.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** One page of a bucket-style listing over sorted keys, as object stores compute it: keys under the prefix, rolled up at the delimiter, `max` entries from `start`. */
export function listKeys(
  keys: readonly string[],
  prefix: string,
  delimiter: string,
  start: number,
  max: number,
): { keys: string[]; prefixes: string[]; next?: number } {
  const entries: { key?: string; prefix?: string }[] = [];
  const rolled = new Set<string>();
  for (const key of [...keys].sort()) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    const cut = delimiter ? rest.indexOf(delimiter) : -1;
    if (cut >= 0) {
      const folder = prefix + rest.slice(0, cut + delimiter.length);
      if (!rolled.has(folder)) {
        rolled.add(folder);
        entries.push({ prefix: folder });
      }
    } else entries.push({ key });
  }
  const page = entries.slice(start, start + max);
  return {
    keys: page.flatMap((e) => (e.key ? [e.key] : [])),
    prefixes: page.flatMap((e) => (e.prefix ? [e.prefix] : [])),
    ...(start + max < entries.length ? { next: start + max } : {}),
  };
}

/** Checks an RS256 JWT's signature with `publicKey` and returns its header and claims, or throws. */
export async function verifyRs256(jwt: string, publicKey: import('node:crypto').KeyObject): Promise<{ header: Record<string, unknown>; claims: Record<string, unknown> }> {
  const { verify } = await import('node:crypto');
  const [header, claims, signature] = jwt.split('.');
  if (!header || !claims || !signature) throw new Error('not a JWT');
  if (!verify('sha256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url'))) throw new Error('bad signature');
  return { header: JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>, claims: JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown> };
}
