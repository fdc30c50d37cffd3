/**
 * A loopback HTTP forward proxy that sends every request to one local port, whatever host the
 * URL names. With HTTP_PROXY pointing here, `http://runtime.example.test` behaves like a
 * remote runtime, so the remote-host rules (trust gate, plaintext refusal) run for real.
 */
import { createServer, request, type Server } from 'node:http';

export const REMOTE_HOST = 'runtime.example.test';

export interface TestProxy {
  url: string;
  /** Absolute URLs the proxy forwarded. */
  seen: string[];
  stop(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<TestProxy> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const target = new URL(req.url ?? '/', 'http://placeholder');
    const upstream = request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: target.pathname + target.search, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, seen, stop: () => new Promise<void>((r) => server.close(() => r())) };
}
