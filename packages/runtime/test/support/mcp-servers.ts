/**
 * The reference MCP servers from npm, run as real processes for the MCP client tests:
 * `@modelcontextprotocol/server-everything` (stdio, or streamable HTTP on a free loopback port)
 * and `@modelcontextprotocol/server-filesystem` (stdio, on a folder). A recording reverse proxy
 * can sit in front of an HTTP server to show what the client sent on the wire.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const binOf = (name: string) => join(dirname(require.resolve(`${name}/package.json`)), 'dist', 'index.js');

export const EVERYTHING_BIN = binOf('@modelcontextprotocol/server-everything');
export const FILESYSTEM_BIN = binOf('@modelcontextprotocol/server-filesystem');

/** `command` and `args` for mcpServer(...) that start server-everything over stdio. */
export const everythingStdio = () => ({ command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });
export const filesystemStdio = (folder: string) => ({ command: process.execPath, args: [FILESYSTEM_BIN, folder] });

export interface HttpMcpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:40123/mcp */
  url: string;
  close(): Promise<void>;
}

export async function startEverythingHttp(): Promise<HttpMcpServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => stop(child) };
}

export interface RecordingProxy {
  url: string;
  /** The JSON-RPC messages clients POSTed, in order. */
  messages: Record<string, any>[];
  /** Sends later requests to another server (one that replaced the first on another port). */
  retarget(target: string): void;
  /** Each request's Authorization and Mcp-Session-Id headers, in order. */
  requests: { authorization: string | undefined; session: string | undefined }[];
  close(): Promise<void>;
}

/** A reverse proxy to `target` (same path) that records each POSTed JSON-RPC message. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  let to = new URL(target);
  const messages: Record<string, any>[] = [];
  const requests: RecordingProxy['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const session = req.headers['mcp-session-id'];
      requests.push({ authorization: req.headers.authorization, session: typeof session === 'string' ? session : undefined });
      if (req.method === 'POST') {
        try {
          const parsed = JSON.parse(body.toString()) as Record<string, any> | Record<string, any>[];
          messages.push(...(Array.isArray(parsed) ? parsed : [parsed]));
        } catch {
          // not JSON: forwarded as it is
        }
      }
      // Hop-by-hop headers stay on this hop.
      const { connection: _connection, 'keep-alive': _keepAlive, ...headers } = req.headers;
      const upstream = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...headers, host: to.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    messages,
    requests,
    retarget: (next) => {
      to = new URL(next);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** Whether a process is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of a process's descendants (Linux /proc), children first. */
export async function descendants(pid: number): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const next = queue.shift()!;
    for (const [child, parent] of parents) {
      if (parent === next) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}
