/**
 * A small round-robin HTTP proxy on loopback, standing in for the load balancer in front of
 * several runtimes: each request goes to the next backend (one that refuses the connection is
 * skipped, as a health-checked balancer would), responses stream through (SSE included), and a
 * client hanging up is passed on to the backend.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Which backend (index) answered each request, in order. */
  routed: number[];
  close(): Promise<void>;
}

export async function startProxy(backends: readonly string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const routed: number[] = [];

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, attempt: number): void => {
    const index = next++ % backends.length;
    const target = new URL(req.url ?? '/', backends[index]);
    const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host }, agent: false }, (answer) => {
      routed.push(index);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!res.headersSent && error.code === 'ECONNREFUSED' && attempt < backends.length) return forward(req, res, body, attempt + 1);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Bad gateway' }));
      else res.destroy();
    });
    // The client went away before the answer ended: the backend must see it go too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
