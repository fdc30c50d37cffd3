/**
 * A loopback stand-in for the runtime's service-accounts API, speaking the documented wire
 * contract (reference/server.md section 2.4) plus /health and /info for discovery. It exists
 * only until the `auth` branch lands the real routes: `tokens.test.ts` gets its server from
 * `startTokenServer`, so swapping in the real runtime is a change to that one function.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type StubAuthMode = 'none' | 'security_key';

export interface StubAccount {
  id: string;
  name: string;
  token_hash: string;
  token_prefix: string;
  scopes: string[];
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface TokenServer {
  url: string;
  port: number;
  /** Every request the server saw, for asserting what the CLI sent. */
  requests: { method: string; path: string; authorization: string | undefined; body: unknown }[];
  accounts: StubAccount[];
  stop(): Promise<void>;
}

const DEFAULT_SCOPES = ['agents:run', 'teams:run', 'workflows:run', 'sessions:read', 'config:read'];
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out || '0';
}

function isPrivileged(scope: string): boolean {
  const parts = scope.split(':');
  const action = parts.at(-1) ?? '';
  return action === 'write' || action === 'delete' || scope === 'agent_os:admin' || parts[0] === 'service_accounts';
}

function publicAccount(a: StubAccount): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    principal: `sa:${a.name}`,
    user_id: null,
    token_prefix: a.token_prefix,
    scopes: a.scopes.map((raw) => {
      const parts = raw.split(':');
      return { id: null, raw, namespace: parts[0], sub_namespace: parts.length > 2 ? parts.slice(1, -1).join(':') : null, permission: parts.at(-1), value: 'allow' };
    }),
    created_at: a.created_at,
    expires_at: a.expires_at,
    last_used_at: a.last_used_at,
    revoked_at: a.revoked_at,
    created_by: null,
  };
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function error(res: ServerResponse, status: number, detail: string, code: string): void {
  send(res, status, { detail, error_code: code });
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

export async function startServiceAccountsStub(mode: StubAuthMode, securityKey = 'test-admin-key', host = '127.0.0.1'): Promise<TokenServer> {
  const accounts: StubAccount[] = [];
  const requests: TokenServer['requests'] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const body = await readBody(req);
      const authorization = req.headers.authorization;
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, authorization, body });
      if (url.pathname === '/health') return send(res, 200, { status: 'ok', instantiated_at: new Date(0).toISOString() });
      if (url.pathname === '/info') {
        return send(res, 200, {
          os_id: 'stub', name: 'Token Stub', version: '0.0.0', agent_count: 0, team_count: 0, workflow_count: 0,
          mcp: { enabled: false, path: null, oauth: null }, auth_mode: mode,
        });
      }
      if (!url.pathname.startsWith('/service-accounts')) return error(res, 404, 'Not Found', 'NOT_FOUND');
      const bearer = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
      let authenticated = false;
      if (mode === 'security_key') {
        if (!bearer) return error(res, 401, 'Authorization header required', 'UNAUTHENTICATED');
        if (bearer !== securityKey) return error(res, 401, 'Invalid authentication token', 'UNAUTHENTICATED');
        authenticated = true;
      }
      const now = Math.floor(Date.now() / 1000);
      if (req.method === 'POST' && url.pathname === '/service-accounts') {
        const b = (body ?? {}) as Record<string, unknown>;
        if (typeof b.name !== 'string' || !NAME.test(b.name)) {
          return error(res, 422, "Name must be a lowercase slug: start with a letter or digit, then letters, digits, '_' or '-' (max 63 chars)", 'VALIDATION_ERROR');
        }
        if (b.scopes !== undefined && b.scopes !== null && (!Array.isArray(b.scopes) || b.scopes.some((s) => typeof s !== 'object' || s === null))) {
          return error(res, 422, 'scopes must be objects {scope, effect}', 'VALIDATION_ERROR');
        }
        const scopes = Array.isArray(b.scopes) ? b.scopes.map((s) => String((s as { scope: unknown }).scope)) : DEFAULT_SCOPES;
        const days = b.expires_in_days ?? 90;
        if (typeof days !== 'number' || days < 1 || days > 3650) return error(res, 422, 'expires_in_days must be between 1 and 3650', 'VALIDATION_ERROR');
        const privileged = scopes.filter(isPrivileged);
        if (privileged.length > 0 && b.allow_privileged_scopes !== true) {
          return error(res, 400, `Privileged scope(s) require allow_privileged_scopes=true: ${privileged.join(', ')}. Privileged tokens must be deliberate, never accidental.`, 'BAD_REQUEST');
        }
        if (!authenticated) return error(res, 401, 'JWT authentication is required to mint a service account.', 'UNAUTHENTICATED');
        if (accounts.some((a) => a.name === b.name && a.revoked_at === null)) {
          return error(res, 409, `An active service account named '${b.name}' already exists. Revoke it first to rotate.`, 'CONFLICT');
        }
        const token = `svc_pat_${base62(randomBytes(32))}`;
        const account: StubAccount = {
          id: randomUUID(),
          name: b.name,
          token_hash: createHash('sha256').update(token).digest('hex'),
          token_prefix: token.slice(0, 16),
          scopes,
          created_at: now,
          expires_at: b.never_expires === true ? null : now + days * 86_400,
          last_used_at: null,
          revoked_at: null,
        };
        accounts.push(account);
        return send(res, 201, { ...publicAccount(account), token });
      }
      if (req.method === 'GET' && url.pathname === '/service-accounts') {
        const page = Number(url.searchParams.get('page') ?? '1');
        const limit = Number(url.searchParams.get('limit') ?? '20');
        const includeRevoked = url.searchParams.get('include_revoked') !== 'false';
        const visible = accounts.filter((a) => includeRevoked || a.revoked_at === null).toReversed();
        const data = visible.slice((page - 1) * limit, page * limit).map(publicAccount);
        return send(res, 200, {
          data,
          meta: { page, limit, total_pages: visible.length === 0 ? 0 : Math.ceil(visible.length / limit), total_count: visible.length, search_time_ms: 0 },
        });
      }
      const id = /^\/service-accounts\/([^/]+)$/.exec(url.pathname)?.[1];
      if (req.method === 'DELETE' && id) {
        const account = accounts.find((a) => a.id === decodeURIComponent(id));
        if (!account) return error(res, 404, `Service account '${id}' not found`, 'NOT_FOUND');
        account.revoked_at ??= now;
        return send(res, 204);
      }
      return error(res, 405, 'Method Not Allowed', 'METHOD_NOT_ALLOWED');
    })();
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    accounts,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
