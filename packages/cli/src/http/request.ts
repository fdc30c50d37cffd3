/**
 * A small HTTP client on node:http(s): loading fetch's implementation costs cold-start time the
 * CLI does not need to pay. Follows redirects, enforces a timeout, and honours HTTP_PROXY /
 * NO_PROXY for plain-HTTP URLs (as curl and the established CLI do), never for loopback.
 */
import type http from 'node:http';
import { isLoopbackHost } from '../util/loopback.js';
import { CLI_VERSION } from '../version.js';

export interface HttpResponse {
  status: number;
  body: string;
  /** Lower-case header names, as node:http delivers them. */
  headers: http.IncomingHttpHeaders;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** Abandons the request (an answer nobody waits for any more). */
  signal?: AbortSignal | undefined;
}

const MAX_REDIRECTS = 5;

/** Joins a base URL that may carry a path (https://host/team1) with an endpoint path. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

function proxyFor(target: URL, env: NodeJS.ProcessEnv): URL | undefined {
  if (target.protocol !== 'http:' || isLoopbackHost(target.hostname)) return undefined;
  const raw = env.http_proxy ?? env.HTTP_PROXY;
  if (!raw) return undefined;
  const noProxy = (env.no_proxy ?? env.NO_PROXY ?? '').split(',').map((s) => s.trim().toLowerCase());
  const host = target.hostname.toLowerCase();
  if (noProxy.some((entry) => entry === '*' || (entry !== '' && (host === entry.replace(/^\./, '') || host.endsWith(`.${entry.replace(/^\./, '')}`))))) {
    return undefined;
  }
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

type Transport = Pick<typeof http, 'request'>;

/** node:https pulls in TLS; loading transports on first use keeps `svc --version` lean. */
async function transportFor(https: boolean): Promise<Transport> {
  return https ? import('node:https') : import('node:http');
}

interface RawResponse {
  status: number;
  location: string | undefined;
  body: string;
  headers: http.IncomingHttpHeaders;
}

function send(transport: Transport, options: http.RequestOptions, req: HttpRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = transport.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
      );
      res.on('error', reject);
    });
    request.setTimeout(req.timeoutMs, () => request.destroy(new Error(`timed out after ${req.timeoutMs / 1000}s`)));
    if (req.signal) {
      if (req.signal.aborted) request.destroy(new Error('aborted'));
      else req.signal.addEventListener('abort', () => request.destroy(new Error('aborted')), { once: true });
    }
    request.on('error', reject);
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}

function refused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNREFUSED' || code === 'EADDRNOTAVAIL' || code === 'ENETUNREACH' || code === 'EAFNOSUPPORT';
}

async function once(req: HttpRequest, url: URL): Promise<RawResponse> {
  const proxy = proxyFor(url, req.env);
  const tls = !proxy && url.protocol === 'https:';
  const transport = await transportFor(tls);
  const headers: Record<string, string> = { 'user-agent': `svcctl/${CLI_VERSION}`, ...req.headers };
  if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
  if (proxy) return send(transport, { host: proxy.hostname, port: proxy.port || 80, path: url.href, method: req.method, headers: { ...headers, host: url.host } }, req);
  const options: http.RequestOptions & { servername?: string } = { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || undefined, path: url.pathname + url.search, method: req.method, headers };
  // Plain HTTP has no TLS server name; saying so spares the agent a host-name check (isIP,
  // whose IPv6 pattern costs milliseconds to compile).
  if (!tls) options.servername = '';
  if (url.hostname.toLowerCase() !== 'localhost') return send(transport, options, req);
  // `localhost` is this machine (RFC 6761), so it is not looked up (the first lookup loads the
  // resolver and starts libuv's thread pool): 127.0.0.1, then ::1 if nothing listens there,
  // with the Host header the URL names.
  const local = { ...options, headers: { ...headers, host: url.host } };
  try {
    return await send(transport, { ...local, host: '127.0.0.1' }, req);
  } catch (error) {
    if (!refused(error)) throw error;
    return send(transport, { ...local, host: '::1' }, req);
  }
}

/** Throws on network failure or timeout; any HTTP status is a response. */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  let url = new URL(req.url);
  let method = req.method;
  let body = req.body;
  let headers = req.headers;
  const origin = url.origin;
  for (let hop = 0; ; hop += 1) {
    const res = await once({ ...req, method, body, headers }, url);
    if (res.location && [301, 302, 303, 307, 308].includes(res.status) && hop < MAX_REDIRECTS) {
      url = new URL(res.location, url);
      // A credential is for the server it was meant for, never for wherever it redirects.
      if (url.origin !== origin && headers) {
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
      }
      // 303 (and, by long-standing client practice, 301/302 on POST) turn into a bodiless GET.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { status: res.status, body: res.body, headers: res.headers };
  }
}
