/**
 * @module server/serve
 * Puts a fetch handler on a TCP port, and takes it off again without cutting requests short.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { RuntimeError } from '../errors.js';

export interface ListenOptions {
  port: number;
  host: string;
}

export interface Listening {
  server: Server;
  /** The bound port (useful when 0 asked the OS to choose). */
  port: number;
  /** A URL a local client can use, e.g. `http://localhost:7777`. */
  url: string;
}

/** `localhost` is bound as 127.0.0.1, so it never depends on how the resolver orders ::1. */
function bindAddress(host: string): string {
  return host === 'localhost' ? '127.0.0.1' : host;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

export function listen(fetch: (request: Request) => Response | Promise<Response>, options: ListenOptions): Promise<Listening> {
  const server = createAdaptorServer({ fetch }) as Server;
  // Slow clients must not hold sockets forever; streaming responses set their own keep-alives.
  server.requestTimeout = 5 * 60_000;
  server.headersTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new RuntimeError(
            'SERVICE_UNAVAILABLE',
            `Port ${options.port} on ${options.host} is already in use: stop the process using it or set PORT to a free port`,
          ),
        );
      } else if (error.code === 'EACCES') {
        reject(new RuntimeError('SERVICE_UNAVAILABLE', `Not allowed to listen on port ${options.port}: choose a port above 1023 with PORT`));
      } else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
        reject(new RuntimeError('SERVICE_UNAVAILABLE', `Cannot listen on host ${options.host}: check HOST`));
      } else {
        reject(error);
      }
    });
    server.listen(options.port, bindAddress(options.host), () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ server, port, url: `http://${urlHost(options.host)}:${port}` });
    });
  });
}

/**
 * Stops accepting connections, lets in-flight requests finish, and after `graceMs` closes
 * whatever is still open (a stuck client must not block a deploy).
 */
export function closeServer(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
