/**
 * A REAL runtime on loopback for the black-box tests (the CLI under test still only sees HTTP).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runtime, silentLogger, SqliteDb, type RuntimeOptions } from '@svc/runtime';

export interface TestRuntime {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRuntime(options: RuntimeOptions = {}, host = '127.0.0.1'): Promise<TestRuntime> {
  const runtime = new Runtime({ env: {}, ...options }, { logger: silentLogger });
  const server = await runtime.serve({ port: 0, host });
  const port = Number(new URL(server.url).port);
  return { url: `http://127.0.0.1:${port}`, port, stop: () => server.close() };
}

/** A fresh SQLite file in its own temporary directory; several runtimes may open it in turn. */
export interface TestSqlite {
  path: string;
  cleanup(): void;
}

export function tempSqlite(): TestSqlite {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-db-'));
  return { path: join(dir, 'runtime.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A real runtime on the given SQLite file (a fresh one when omitted, removed again on stop).
 */
export async function startSqliteRuntime(options: RuntimeOptions = {}, sqlite?: TestSqlite): Promise<TestRuntime> {
  const db = sqlite ?? tempSqlite();
  const started = await startRuntime({ ...options, db: new SqliteDb({ path: db.path }) });
  return {
    ...started,
    stop: async () => {
      await started.stop();
      if (!sqlite) db.cleanup();
    },
  };
}

export interface ApiResponse {
  status: number;
  // Tests read arbitrary JSON bodies.
  body: any;
}

/** One HTTP call to a test runtime, the way any client would make it (for checking server state). */
export async function api(base: string, method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** A loopback port that nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * Makes an account's tokens expire now, directly in the runtime's SQLite file (there is no API
 * for it, and waiting a day is not a test). The runtime must run with its token cache off
 * (SERVICE_ACCOUNT_CACHE_TTL_SECONDS=0, see NO_TOKEN_CACHE): a cached token is checked against
 * the expiry it was cached with, and only revocations, not edits of the table, reach the cache.
 * It then refuses the token from the next request on.
 */
/** Env for a runtime whose accounts a test edits in the database (see expireAccount). */
export const NO_TOKEN_CACHE = { SERVICE_ACCOUNT_CACHE_TTL_SECONDS: '0' } as const;

export async function expireAccount(dbPath: string, name: string): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(dbPath);
  try {
    db.prepare('UPDATE svc_service_accounts SET expires_at = ? WHERE name = ? AND revoked_at IS NULL').run(Math.floor(Date.now() / 1000) - 60, name);
  } finally {
    db.close();
  }
}

/** The status of one MCP `initialize` with `token`: 200 while the runtime accepts it, 401 once revoked. */
export async function mcpStatus(base: string, token: string): Promise<number> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await res.text();
  return res.status;
}

/** Mints an account straight through the API (as another tool or user would) and returns its token. */
export async function mintAccount(base: string, adminKey: string, name: string): Promise<string> {
  const created = await api(base, 'POST', '/service-accounts', { token: adminKey, body: { name } });
  if (created.status !== 201) throw new Error(`minting ${name} failed: HTTP ${created.status}`);
  return created.body.token as string;
}

/** The names of the active accounts, sorted. */
export async function activeAccountNames(base: string, adminKey: string): Promise<string[]> {
  const res = await api(base, 'GET', '/service-accounts?limit=100&include_revoked=false', { token: adminKey });
  return (res.body.data as { name: string }[]).map((a) => a.name).sort();
}
