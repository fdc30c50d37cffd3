/**
 * `svc status` and discovery against a real runtime (and a stub for older servers).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { installClients } from './support/clients.js';
import { api, deadPort, expireAccount, NO_TOKEN_CACHE, startRuntime, startSqliteRuntime, tempSqlite, type TestRuntime, type TestSqlite } from './support/runtime.js';

async function firstLiveDefaultPort(): Promise<number | undefined> {
  for (const port of [7777, 7778, 7779, 8000]) {
    try {
      const res = await fetch(`http://localhost:${port}/health`, { signal: AbortSignal.timeout(5000) });
      const body: unknown = await res.json();
      if (res.status === 200 && typeof body === 'object' && body !== null && !Array.isArray(body)) return port;
    } catch {
      // nothing there
    }
  }
  return undefined;
}

const CLIENT_IDS = ['terminal-agent', 'desktop-app', 'cli-agent', 'editor'];

describe('svc status', () => {
  let open: TestRuntime;
  let keyed: TestRuntime;
  let box: Sandbox;

  beforeAll(async () => {
    await ensureBuilt();
    open = await startRuntime({ id: 'rt-open', name: 'Customer Support', mcp_server: true });
    keyed = await startRuntime({ id: 'rt-key', env: { OS_SECURITY_KEY: 'test-admin-key' } });
  });
  afterAll(async () => {
    await open.stop();
    await keyed.stop();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('--json prints the OS object and one row per client', async () => {
    const r = await runCli(['status', '--url', `${open.url}/`, '--json'], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const body = jsonOf(r);
    expect(Object.keys(body)).toEqual(['os', 'clients']);
    expect(body.os).toEqual({
      url: open.url,
      name: 'Customer Support',
      os_id: 'rt-open',
      version: expect.any(String),
      mcp: { enabled: true, path: '/mcp', oauth: null },
      auth_mode: 'none',
      discovered_via: 'info',
      url_source: 'flag',
      url_source_file: null,
    });
    expect(Object.keys(body.os as object)).toEqual(['url', 'name', 'os_id', 'version', 'mcp', 'auth_mode', 'discovered_via', 'url_source', 'url_source_file']);
    expect(body.clients).toEqual(CLIENT_IDS.map((client) => ({ client, detected: false, configured: false, location: null, token_valid: null })));
  });

  it('reports the auth mode and disabled MCP of a keyed runtime, in human mode', async () => {
    const r = await runCli(['status', '--url', keyed.url], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Runtime: ${keyed.url}`);
    expect(r.stdout).toContain('MCP: disabled');
    expect(r.stdout).toContain('Auth mode: security_key');
    expect(r.stdout).not.toContain('MCP auth');
    expect(r.stdout).toContain('terminal-agent: not detected');
  });

  it('takes RUNTIME_URL from the environment before any env file', async () => {
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${keyed.url}\n`);
    const r = await runCli(['status', '--json'], { ...box, env: { RUNTIME_URL: open.url } });
    expect(r.code).toBe(0);
    expect(jsonOf(r).os).toMatchObject({ url: open.url, url_source: 'env', url_source_file: null });
  });

  it('reads RUNTIME_URL from .env.production before .env', async () => {
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${keyed.url}\n`);
    let r = await runCli(['status', '--json'], box);
    expect(jsonOf(r).os).toMatchObject({ url: keyed.url, url_source: 'env-file', url_source_file: '.env', auth_mode: 'security_key' });
    writeFileSync(join(box.cwd, '.env.production'), `# deployed\nexport RUNTIME_URL="${open.url}/"  # prod\n`);
    r = await runCli(['status', '--json'], box);
    expect(r.code).toBe(0);
    expect(jsonOf(r).os).toMatchObject({ url: open.url, url_source: 'env-file', url_source_file: '.env.production' });
    r = await runCli(['status'], box);
    expect(r.stdout).toContain(`Runtime: ${open.url} (from RUNTIME_URL in .env.production)`);
  });

  it('fails on a dead env-file URL without falling back to localhost', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`;
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${dead}\n`);
    const r = await runCli(['status', '--json'], box);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(jsonOf(r)).toEqual({
      error: `No running runtime found (tried: ${dead} (from RUNTIME_URL in .env)).`,
      hint: expect.stringContaining('RUNTIME_URL in .env in this directory'),
    });
    const human = await runCli(['status'], box);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toContain('No running runtime found');
    expect(human.stderr).toContain('Hint:');
  });

  it('rejects an unusable RUNTIME_URL as an invalid URL', async () => {
    const r = await runCli(['status', '--json'], { ...box, env: { RUNTIME_URL: 'http://host:${PORT}' } });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: 'Invalid runtime URL: http://host:${PORT} (from RUNTIME_URL).', hint: 'Fix the URL or pass --url.' });
  });

  it('probes the loopback ports in order when nothing names a URL', async () => {
    // Another runtime may really be listening on this shared machine: then it must be the one found.
    const live = await firstLiveDefaultPort();
    const r = await runCli(['status', '--json'], box);
    const body = jsonOf(r);
    const os = body.os as { url_source?: string; url?: string } | undefined;
    const hint = typeof body.hint === 'string' && body.hint.includes('pass --url, or set RUNTIME_URL') ? 'names the way out' : body.hint;
    const summary = { code: r.code, source: os?.url_source, url: os?.url, error: body.error, hint };
    expect(summary).toEqual(
      live === undefined
        ? {
            code: 1,
            source: undefined,
            url: undefined,
            error: 'No running runtime found (tried: http://localhost:7777, http://localhost:7778, http://localhost:7779, http://localhost:8000).',
            hint: 'names the way out',
          }
        : { code: 0, source: 'default', url: `http://localhost:${live}`, error: undefined, hint: undefined },
    );
  });

  it('detects clients and finds entries under the derived server name', async () => {
    mkdirSync(join(box.home, '.cursor'));
    writeFileSync(join(box.home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { 'customer-support': { url: `${open.url}/mcp` } } }));
    mkdirSync(join(box.home, '.codex'));
    writeFileSync(join(box.home, '.codex', 'config.toml'), `# mine\n[mcp_servers.other]\nurl = "http://x/mcp"\n`);
    writeFileSync(
      join(box.home, '.claude.json'),
      JSON.stringify({ projects: { [box.cwd]: { mcpServers: { 'customer-support': { type: 'http', url: `${open.url}/mcp` } } } } }),
    );
    mkdirSync(join(box.home, '.config', 'Claude'), { recursive: true });
    writeFileSync(
      join(box.home, '.config', 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({ mcpServers: { custom: { command: 'npx', args: ['-y', 'mcp-remote', `${open.url}/mcp`] } } }),
    );
    let r = await runCli(['status', '--url', open.url, '--json'], box);
    expect(jsonOf(r).clients).toEqual([
      // Tokenless entries: nothing to check (token_valid null).
      { client: 'terminal-agent', detected: true, configured: true, location: `${join(box.home, '.claude.json')} (local scope)`, token_valid: null },
      { client: 'desktop-app', detected: true, configured: false, location: null, token_valid: null },
      { client: 'cli-agent', detected: true, configured: false, location: null, token_valid: null },
      { client: 'editor', detected: true, configured: true, location: join(box.home, '.cursor', 'mcp.json'), token_valid: null },
    ]);
    r = await runCli(['status', '--url', open.url, '--server-name', 'custom', '--json'], box);
    expect(jsonOf(r).clients).toContainEqual({
      client: 'desktop-app',
      detected: true,
      configured: true,
      location: join(box.home, '.config', 'Claude', 'claude_desktop_config.json'),
      token_valid: null,
    });
    r = await runCli(['status', '--url', open.url], box);
    expect(r.stdout).toContain(`editor: configured (${join(box.home, '.cursor', 'mcp.json')})`);
    expect(r.stdout).toContain('cli-agent: detected, not connected (run: svc connect)');
  });

  it('finds a runtime on localhost whichever loopback address it listens on, and says localhost in Host', async () => {
    const hosts: string[] = [];
    const listen = (host: string) =>
      new Promise<Server | undefined>((resolve) => {
        const server = createServer((req, res) => {
          hosts.push(req.headers.host ?? '');
          res.setHeader('content-type', 'application/json');
          res.end(req.url === '/health' ? '{"status":"ok"}' : JSON.stringify({ name: host, mcp: { enabled: false }, auth_mode: 'none' }));
        });
        server.once('error', () => resolve(undefined));
        server.listen(0, host, () => resolve(server));
      });
    const v6 = await listen('::1');
    if (!v6) return; // no IPv6 loopback on this machine
    const v4 = await listen('127.0.0.1');
    try {
      for (const [server, host] of [
        [v6, '::1'],
        [v4, '127.0.0.1'],
      ] as const) {
        const port = (server!.address() as { port: number }).port;
        const r = await runCli(['status', '--url', `http://localhost:${port}`, '--json'], box);
        expect(r.code).toBe(0);
        expect(jsonOf(r).os).toMatchObject({ url: `http://localhost:${port}`, name: host });
        expect(hosts.at(-1)).toBe(`localhost:${port}`);
      }
    } finally {
      await new Promise<void>((r) => v6.close(() => r()));
      await new Promise<void>((r) => v4!.close(() => r()));
    }
  });

  describe('older runtimes without structured /info', () => {
    let stub: Server;
    let stubUrl = '';
    beforeAll(async () => {
      stub = createServer((req, res) => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/health') return res.end(JSON.stringify({ status: 'ok' }));
        if (req.url === '/info') return res.end(JSON.stringify({ os_id: 'old', version: '1.0.0' }));
        if (req.url === '/mcp' && req.method === 'POST') return res.end('{}');
        if (req.url === '/config') {
          res.statusCode = 401;
          return res.end(JSON.stringify({ detail: 'Authorization header required' }));
        }
        res.statusCode = 404;
        res.end('{"detail":"Not Found"}');
      });
      await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
      const a = stub.address();
      stubUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    });
    afterAll(() => new Promise<void>((r) => stub.close(() => r())));

    it('probes POST /mcp and GET /config to fill in MCP and the auth mode', async () => {
      const r = await runCli(['status', '--url', stubUrl, '--json'], box);
      expect(r.code).toBe(0);
      expect(jsonOf(r).os).toEqual({
        url: stubUrl,
        name: null,
        os_id: null,
        version: '1.0.0',
        mcp: { enabled: true, path: '/mcp', oauth: null },
        auth_mode: 'security_key',
        discovered_via: 'probe',
        url_source: 'flag',
        url_source_file: null,
      });
    });
  });
});

function rowsOf(r: { stdout: string }): Record<string, Record<string, unknown>> {
  return Object.fromEntries((jsonOf(r as never).clients as Record<string, unknown>[]).map((row) => [row.client, row]));
}

describe('svc status checks each configured credential against the runtime', () => {
  const KEY = 'test-admin-key';
  let db: TestSqlite;
  let rt: TestRuntime;
  let box: Sandbox;
  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    db = tempSqlite();
    rt = await startSqliteRuntime({ name: 'Checked', mcp_server: true, env: { OS_SECURITY_KEY: KEY, ...NO_TOKEN_CACHE } }, db);
    box = sandbox();
  });
  afterEach(async () => {
    await rt.stop();
    db.cleanup();
    box.cleanup();
  });

  it('token_valid: true when accepted, false once revoked or expired (with the command that fixes it), null with nothing to check', async () => {
    const p = installClients(box);
    const connected = await runCli(['connect', '--url', rt.url, '--clients', 'terminal,codex,cursor', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(connected.code).toBe(0);
    let rows = rowsOf(await runCli(['status', '--url', rt.url, '--json'], box));
    expect(rows['terminal-agent']).toEqual({ client: 'terminal-agent', detected: true, configured: true, location: `${p.claudeUser} (user scope)`, token_valid: true });
    expect(rows['cli-agent']).toMatchObject({ configured: true, token_valid: true });
    expect(rows['desktop-app']).toMatchObject({ detected: false, configured: false, token_valid: null });

    // Revoke one account, let another expire: both entries still exist, neither works.
    const accounts = (await api(rt.url, 'GET', '/service-accounts?limit=100', { token: KEY })).body.data as { id: string; name: string }[];
    const editor = accounts.find((a) => a.name === 'editor')!;
    expect((await api(rt.url, 'DELETE', `/service-accounts/${editor.id}`, { token: KEY })).status).toBe(204);
    await expireAccount(db.path, 'cli-agent');
    const r = await runCli(['status', '--url', rt.url, '--json'], box);
    expect(r.code).toBe(0);
    rows = rowsOf(r);
    expect(rows.editor).toMatchObject({ configured: true, token_valid: false });
    expect(rows['cli-agent']).toMatchObject({ configured: true, token_valid: false });
    expect(rows['terminal-agent']).toMatchObject({ token_valid: true });

    const human = await runCli(['status', '--url', rt.url], box);
    expect(human.stdout).toContain(
      `editor: configured (${p.cursorUser}), but the runtime rejects its token (revoked or expired); fix: svc connect --url ${rt.url} --clients editor`,
    );
    expect(human.stdout).toContain(`cli-agent: configured (${p.codex}), but the runtime rejects its token (revoked or expired); fix: svc connect --url ${rt.url} --clients cli-agent`);
    expect(human.stdout).toContain(`terminal-agent: configured (${p.claudeUser} (user scope))\n`);

    // The command it names does fix it.
    const fixed = await runCli(['connect', '--url', rt.url, '--clients', 'editor,cli-agent', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(fixed.code).toBe(0);
    rows = rowsOf(await runCli(['status', '--url', rt.url, '--json'], box));
    expect(rows.editor).toMatchObject({ token_valid: true });
    expect(rows['cli-agent']).toMatchObject({ token_valid: true });
  });

  it('never sends a token to a runtime its entry does not name, and says where the entry points', async () => {
    const p = installClients(box);
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { checked: { url: 'https://elsewhere.example/mcp', headers: { Authorization: 'Bearer svc_pat_other' } } } }));
    writeFileSync(p.claudeUser, JSON.stringify({ mcpServers: { svc: { type: 'http', url: `${rt.url}/mcp` } } }));
    const rows = rowsOf(await runCli(['status', '--url', rt.url, '--json'], box));
    expect(rows.editor).toMatchObject({ configured: true, token_valid: null });
    expect(rows['terminal-agent']).toMatchObject({ configured: false, token_valid: null });
    const human = await runCli(['status', '--url', rt.url], box);
    expect(human.stdout).toContain(`editor: configured (${p.cursorUser}) for https://elsewhere.example/mcp, not this runtime`);
    expect(human.stdout).toContain(`terminal-agent: configured under the legacy name 'svc' (${p.claudeUser} (user scope)); to rename it: svc connect --url ${rt.url} --clients terminal-agent`);
  });
});
