/**
 * @module server/serve
 * Puts a fetch handler on a TCP port, and takes it off again without cutting requests short.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
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

/**
 * Requests Node refuses before they reach the app (headers or URL over its 16 KB limit, a
 * malformed request line, a timeout) get the JSON error envelope like every other error, rather
 * than Node's empty 431/400 or a reset. What the client is still sending is read and dropped, so
 * closing does not reset the connection before it has read the answer.
 */
const answered = new WeakSet<Duplex>();

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // Node reports every later chunk of a broken request again; one answer per connection.
  if (answered.has(socket)) return;
  answered.add(socket);
  const started = (socket as Duplex & { _httpMessage?: unknown })._httpMessage !== undefined && (socket as Duplex & { _httpMessage?: unknown })._httpMessage !== null;
  if (!socket.writable || started || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, code, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'The request line and headers are too large (at most 16 KB together); a token or URL that long is not accepted']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'REQUEST_TIMEOUT', 'The request took too long to arrive']
        : [400, 'BAD_REQUEST', 'The request is not valid HTTP'];
  const body = JSON.stringify({ detail, error_code: code });
  socket.on('data', () => {});
  socket.on('error', () => {});
  socket.resume();
  // Written without closing our side: a client still sending its request would take an early
  // close for a failure. It closes once it has read the answer (Connection: close), and one that
  // does not is cut off shortly.
  socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), 2000).unref();
}

export function listen(fetch: (request: Request) => Response | Promise<Response>, options: ListenOptions): Promise<Listening> {
  const server = createAdaptorServer({ fetch }) as Server;
  // Slow clients must not hold sockets forever; streaming responses set their own keep-alives.
  server.requestTimeout = 5 * 60_000;
  server.headersTimeout = 60_000;
  server.on('clientError', answerClientError);
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
