/**
 * `svc connect` against REAL runtimes (security key, JWT, open, OAuth-protected MCP). What the
 * CLI did is checked where it lands: the client config files (shape, mode, untouched
 * neighbours), the accounts the runtime holds, and whether the written tokens work there.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sign, signingKey, type SigningKey } from '../../runtime/test/support/jwt.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { installClients, modeOf, paths, readJson } from './support/clients.js';
import { REMOTE_HOST, startProxy, type TestProxy } from './support/proxy.js';
import { runCliTty } from './support/tty.js';
import { api, startSqliteRuntime as startRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
const TOP_KEYS = ['os', 'server_name', 'results', 'warning', 'exit_code'];
const ACCOUNT_KEYS = ['id', 'name', 'principal', 'token_prefix', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'];
const DEFAULT_SCOPES = ['agents:run', 'teams:run', 'workflows:run', 'sessions:read', 'config:read'];

type Json = Record<string, any>;

async function activeAccounts(rt: TestRuntime, credential: string): Promise<Json[]> {
  const res = await api(rt.url, 'GET', '/service-accounts?limit=100&include_revoked=false', { token: credential });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Whether a token is accepted by the runtime's MCP endpoint. */
async function mcpStatus(rt: TestRuntime, token: string | undefined): Promise<number> {
  const res = await fetch(`${rt.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await res.text();
  return res.status;
}

const bearer = (value: string): string => value.replace(/^Bearer /, '');

describe('svc connect (security-key runtime)', () => {
  let rt: TestRuntime;
  let box: Sandbox;
  let p: ReturnType<typeof paths>;
  const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) => runCli(['connect', '--url', rt.url, ...args], { ...box, env });

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    rt = await startRuntime({ name: 'Customer Support', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
    box = sandbox();
    p = installClients(box);
  });
  afterEach(async () => {
    await rt.stop();
    box.cleanup();
  });

  it('--json mints one account per client, writes 0600 entries, verifies them and keeps unrelated content', async () => {
    writeFileSync(p.claudeUser, JSON.stringify({ numStartups: 3, projects: { '/elsewhere': { mcpServers: {} } } }, null, 2));
    const toml = '# my codex settings\nmodel = "o3"  # keep me\n\n[mcp_servers.other]\nurl = "https://other.example/mcp"\n';
    writeFileSync(p.codex, toml, { mode: 0o644 });
    const r = await run(['--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const body = jsonOf(r);
    expect(Object.keys(body)).toEqual(TOP_KEYS);
    expect(body).toMatchObject({ server_name: 'customer-support', warning: null, exit_code: 0, os: { url: rt.url, name: 'Customer Support', auth_mode: 'security_key' } });
    const results = body.results as Json[];
    expect(results.map((row) => [row.client, row.status])).toEqual([
      ['terminal-agent', 'connected'],
      ['cli-agent', 'connected'],
      ['editor', 'connected'],
    ]);
    for (const row of results) {
      expect(Object.keys(row)).toEqual(['client', 'status', 'error', 'location', 'account', 'verify']);
      expect(Object.keys(row.account)).toEqual(ACCOUNT_KEYS);
      expect(row.account).toMatchObject({ name: row.client, scopes: DEFAULT_SCOPES, revoked_at: null });
      expect(row.verify).toEqual({ ok: true, tools: expect.any(Number), status_code: 200, error: null, oauth_challenge: false });
      expect(row.verify.tools).toBeGreaterThan(0);
    }
    expect(results.map((row) => row.location)).toEqual([p.claudeUser, p.codex, p.cursorUser]);

    const mcp = `${rt.url}/mcp`;
    const claude = readJson(p.claudeUser);
    expect(claude.numStartups).toBe(3);
    expect(claude.projects).toEqual({ '/elsewhere': { mcpServers: {} } });
    expect(claude.mcpServers['customer-support']).toEqual({ type: 'http', url: mcp, headers: { Authorization: expect.stringMatching(/^Bearer svc_pat_/) } });
    const cursor = readJson(p.cursorUser).mcpServers['customer-support'];
    expect(cursor).toEqual({ url: mcp, headers: { Authorization: expect.stringMatching(/^Bearer svc_pat_/) } });
    const codexText = readFileSync(p.codex, 'utf8');
    expect(codexText.startsWith(toml)).toBe(true);
    expect(codexText.slice(toml.length)).toMatch(/^\n\[mcp_servers\.customer-support\]\nurl = ".*\/mcp"\nhttp_headers = \{ "Authorization" = "Bearer svc_pat_\w+" \}\n$/);
    for (const file of [p.claudeUser, p.codex, p.cursorUser]) expect(modeOf(file)).toBe(0o600);

    // Each client has its own account, and the token in each file works on the runtime.
    const tokens = [bearer(claude.mcpServers['customer-support'].headers.Authorization), bearer(cursor.headers.Authorization), codexText.match(/Bearer (svc_pat_\w+)/)![1]!];
    expect(new Set(tokens).size).toBe(3);
    for (const token of tokens) {
      expect(r.stdout).not.toContain(token);
      expect(await mcpStatus(rt, token)).toBe(200);
    }
    expect((await activeAccounts(rt, KEY)).map((a) => a.name).sort()).toEqual(['cli-agent', 'editor', 'terminal-agent']);
  });

  it('is idempotent: a second run reports already-connected and mints nothing', async () => {
    expect((await run(['--json'])).code).toBe(0);
    const before = readFileSync(p.cursorUser, 'utf8');
    const r = await run(['--json']);
    expect(r.code).toBe(0);
    const results = jsonOf(r).results as Json[];
    expect(results.map((row) => row.status)).toEqual(['already-connected', 'already-connected', 'already-connected']);
    expect(Object.keys(results[0]!)).toEqual(['client', 'status', 'error', 'location', 'verify']);
    expect(results[0]!.location).toBe(`${p.claudeUser} (user scope)`);
    expect(readFileSync(p.cursorUser, 'utf8')).toBe(before);
    expect(await activeAccounts(rt, KEY)).toHaveLength(3);
  });

  it('--rotate revokes and re-mints: the old token stops working, the new one works', async () => {
    await run(['--json', '--clients', 'editor']);
    const old = bearer(readJson(p.cursorUser).mcpServers['customer-support'].headers.Authorization);
    const r = await run(['--json', '--clients', 'editor', '--rotate']);
    expect(r.code).toBe(0);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row).toMatchObject({ client: 'editor', status: 'connected', rotated: true });
    const fresh = bearer(readJson(p.cursorUser).mcpServers['customer-support'].headers.Authorization);
    expect(fresh).not.toBe(old);
    expect(await mcpStatus(rt, old)).toBe(401);
    expect(await mcpStatus(rt, fresh)).toBe(200);
  });

  it('an account of yours the run would have to rotate: an error naming --rotate, or skipped with --skip-existing', async () => {
    // The editor account's token sits in this user's Claude Code config (a client this run does
    // not touch), so the account is theirs; rotating it would cut that entry off, which needs a
    // decision. (An entry of Cursor's own for this runtime would simply be renamed in place.)
    const created = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'editor' } });
    expect(created.status).toBe(201);
    writeFileSync(p.claudeUser, JSON.stringify({ mcpServers: { older: { type: 'http', url: `${rt.url}/mcp`, headers: { Authorization: `Bearer ${created.body.token}` } } } }));
    const before = readFileSync(p.claudeUser, 'utf8');
    const conflict = await run(['--json', '--clients', 'editor']);
    expect(conflict.code).toBe(1);
    expect((jsonOf(conflict).results as Json[])[0]).toEqual({
      client: 'editor',
      status: 'failed',
      error: "A service account named 'editor' already exists. Re-run with --rotate to revoke and re-mint it, or --skip-existing to leave it untouched.",
    });
    expect(readFileSync(p.claudeUser, 'utf8')).toBe(before);
    const skipped = await run(['--json', '--clients', 'editor,codex', '--skip-existing']);
    expect(skipped.code).toBe(3);
    const rows = jsonOf(skipped).results as Json[];
    expect(rows[0]).toEqual({ client: 'editor', status: 'skipped', error: 'Service account exists; kept untouched.' });
    expect(rows[1]).toMatchObject({ client: 'cli-agent', status: 'connected' });
    expect(readFileSync(p.claudeUser, 'utf8')).toBe(before);
    expect(await mcpStatus(rt, created.body.token)).toBe(200);
    // --rotate says which other entry loses its token.
    const rotated = await run(['--json', '--clients', 'editor', '--rotate']);
    expect(rotated.code).toBe(0);
    expect((jsonOf(rotated).results as Json[])[0]).toMatchObject({ status: 'connected', note: expect.stringContaining("also cuts off ~/.claude.json (user scope) ('older')") });
    expect(await mcpStatus(rt, created.body.token)).toBe(401);
  });

  it('--name shares one account; --scopes/-s, --expires never and --privileged shape it', async () => {
    const r = await run(['--json', '--name', 'shared-bot', '-s', 'agents:run', '--scopes', 'config:read', '--scopes', 'agents:write', '--privileged', '--expires', 'never']);
    expect(r.code).toBe(0);
    const rows = jsonOf(r).results as Json[];
    expect(rows.every((row) => row.status === 'connected' && row.account.name === 'shared-bot')).toBe(true);
    expect(rows[0]!.account).toMatchObject({ scopes: ['agents:run', 'config:read', 'agents:write'], expires_at: null });
    const claudeToken = readJson(p.claudeUser).mcpServers['customer-support'].headers.Authorization;
    expect(readJson(p.cursorUser).mcpServers['customer-support'].headers.Authorization).toBe(claudeToken);
    expect((await activeAccounts(rt, KEY)).map((a) => a.name)).toEqual(['shared-bot']);
  });

  it('without --privileged a write scope fails for the client, and --expires 30 sets 30 days', async () => {
    const denied = await run(['--json', '--clients', 'editor', '-s', 'agents:write']);
    expect(denied.code).toBe(1);
    expect((jsonOf(denied).results as Json[])[0]!.error).toMatch(/Could not create service account 'editor'.*[Pp]rivileged/);
    const r = await run(['--json', '--clients', 'editor', '--expires', '30']);
    const account = (jsonOf(r).results as Json[])[0]!.account;
    expect(account.expires_at).toBe(account.created_at + 30 * 86_400);
  });

  it('--project writes the project files (with a note about the token) and --server-name names the entry', async () => {
    const r = await run(['--json', '--project', '--clients', 'terminal,cursor', '--server-name', 'My_rt-1']);
    expect(r.code).toBe(0);
    const body = jsonOf(r);
    expect(body.server_name).toBe('My_rt-1');
    const rows = body.results as Json[];
    expect(rows.map((row) => row.location)).toEqual([p.claudeProject, p.cursorProject]);
    expect(rows[0]!.note).toContain('project-scoped');
    expect(rows[1]!.note).toContain('keep it out of version control');
    expect(readJson(p.claudeProject).mcpServers['My_rt-1'].url).toBe(`${rt.url}/mcp`);
    expect(readJson(p.cursorProject).mcpServers['My_rt-1'].url).toBe(`${rt.url}/mcp`);
    expect(modeOf(p.claudeProject)).toBe(0o600);
    expect(readFileSync(p.claudeUser, 'utf8')).toBe('{}');
  });

  it('desktop-app: a bridge entry whose token travels in env, never in args', async () => {
    mkdirSync(join(box.home, '.config', 'Claude'), { recursive: true });
    writeFileSync(p.desktop, JSON.stringify({ globalShortcut: 'Ctrl+Space' }));
    const r = await run(['--json', '--clients', 'desktop']);
    expect(r.code).toBe(0);
    expect((jsonOf(r).results as Json[])[0]).toMatchObject({ client: 'desktop-app', status: 'connected', location: p.desktop });
    const doc = readJson(p.desktop);
    expect(doc.globalShortcut).toBe('Ctrl+Space');
    const entry = doc.mcpServers['customer-support'];
    expect(entry).toEqual({
      command: 'npx',
      args: ['-y', 'mcp-remote', `${rt.url}/mcp`, '--header', 'Authorization:${SVC_AUTH_HEADER}'],
      env: { SVC_AUTH_HEADER: expect.stringMatching(/^Bearer svc_pat_\w+$/) },
    });
    expect(JSON.stringify(entry.args)).not.toContain('svc_pat_');
    expect(modeOf(p.desktop)).toBe(0o600);
    // The token is read back through the env indirection, so a re-run finds the entry working.
    const again = await run(['--json', '--clients', 'desktop']);
    expect((jsonOf(again).results as Json[])[0]).toMatchObject({ status: 'already-connected', verify: { ok: true } });
  });

  it('a malformed config fails that client only, stays byte-for-byte, and the run exits 3', async () => {
    writeFileSync(p.cursorUser, '{ "mcpServers": { broken');
    const r = await run(['--json']);
    expect(r.code).toBe(3);
    const body = jsonOf(r);
    expect(body.exit_code).toBe(3);
    const editor = (body.results as Json[]).find((row) => row.client === 'editor')!;
    expect(editor.status).toBe('failed');
    expect(editor.error).toContain(`Refusing to modify ${p.cursorUser}: the existing file is not valid JSON`);
    expect(editor.error).toContain('Fix or move the file, then re-run.');
    expect(readFileSync(p.cursorUser, 'utf8')).toBe('{ "mcpServers": { broken');
  });

  it('an entry of the same name pointing elsewhere: replaced (replaced_url), or left alone with --skip-existing', async () => {
    const foreign = { mcpServers: { 'customer-support': { url: 'https://other.example/mcp' }, keep: { url: 'https://keep.example/mcp' } } };
    writeFileSync(p.cursorUser, JSON.stringify(foreign));
    const skipped = await run(['--json', '--clients', 'editor', '--skip-existing']);
    expect(skipped.code).toBe(1);
    expect((jsonOf(skipped).results as Json[])[0]).toEqual({
      client: 'editor',
      status: 'skipped',
      error: 'Existing entry points at https://other.example/mcp; left untouched.',
      location: p.cursorUser,
    });
    expect(readJson(p.cursorUser)).toEqual(foreign);
    const replaced = await run(['--json', '--clients', 'editor']);
    expect((jsonOf(replaced).results as Json[])[0]).toMatchObject({ status: 'connected', replaced_url: 'https://other.example/mcp' });
    expect(readJson(p.cursorUser).mcpServers.keep).toEqual({ url: 'https://keep.example/mcp' });
  });

  it('human mode reports rows, the restart hint and how to revoke', async () => {
    const r = await run([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Runtime "Customer Support" at ${rt.url}`);
    expect(r.stdout).toContain('Credential accepted.');
    expect(r.stdout).toMatch(/connected +Claude Code \(\d+ tools\) +-> +~\/\.claude\.json/);
    expect(r.stdout).toContain("Connected 3 apps to \"Customer Support\" as 'customer-support'.");
    expect(r.stdout).toContain('accounts: cli-agent, editor, terminal-agent');
    expect(r.stderr).toContain('Restart Claude Code, Codex, Cursor so they load the new MCP server.');
  });

  it('fails before anything else without a credential, or with a rejected one', async () => {
    const missing = await run(['--json'], {});
    expect(missing.code).toBe(1);
    expect(jsonOf(missing).error).toBe('This runtime requires an admin credential to mint tokens (auth mode: security_key).');
    const rejected = await run([], { SVC_ADMIN_TOKEN: 'wrong' });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('rejected the admin credential');
    expect(readFileSync(p.claudeUser, 'utf8')).toBe('{}');
  });

  it('usage errors exit 2 with nothing on stdout; client errors exit 1 with {error, hint}', async () => {
    for (const args of [['--server-name', 'a.b'], ['--expires', '0'], ['--bogus']]) {
      const r = await run([...args, '--json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    }
    const unknown = await run(['--json', '--clients', 'vim']);
    expect(unknown.code).toBe(1);
    expect(jsonOf(unknown)).toEqual({ error: 'Unknown client: vim', hint: expect.stringContaining('chat-app-a') });
    const none = await runCli(['connect', '--url', rt.url, '--json'], { ...sandbox(), env: { SVC_ADMIN_TOKEN: KEY } });
    expect(none.code).toBe(1);
    expect(jsonOf(none).error).toBe('No supported clients detected on this machine.');
  });

  it('chat apps get manual steps and exit 0', async () => {
    const r = await run(['--json', '--clients', 'chat-app-a,chat']);
    expect(r.code).toBe(0);
    const rows = jsonOf(r).results as Json[];
    expect(rows.map((row) => [row.client, row.status])).toEqual([
      ['chat-app-a', 'manual'],
      ['chat-app-b', 'manual'],
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['client', 'status', 'error', 'url', 'instructions', 'note']);
    expect(rows[0]!.instructions.join(' ')).toContain('claude.ai');
    expect(rows[0]!.note).toContain('public HTTPS');
  });
});

describe('svc connect (other runtimes)', () => {
  let box: Sandbox;
  let rsa: SigningKey;
  beforeAll(async () => {
    await ensureBuilt();
    rsa = await signingKey('RS256', 'k1');
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('open runtime: tokenless entries, no account, file modes left to the umask', async () => {
    const rt = await startRuntime({ mcp_server: true });
    try {
      const p = installClients(box);
      const r = await runCli(['connect', '--url', rt.url, '--json'], box);
      expect(r.code).toBe(0);
      const body = jsonOf(r);
      const name = body.server_name as string;
      for (const row of body.results as Json[]) {
        expect(row.status).toBe('connected');
        expect(row.account).toBeUndefined();
      }
      expect(readJson(p.cursorUser).mcpServers[name]).toEqual({ url: `${rt.url}/mcp` });
      expect(readFileSync(p.codex, 'utf8')).toBe(`[mcp_servers.${name}]\nurl = "${rt.url}/mcp"\n`);
      expect(modeOf(p.cursorUser)).not.toBe(0o600);
      const human = await runCli(['connect', '--url', rt.url], box);
      expect(human.stdout).toContain('Authorization is disabled on this runtime; connecting without credentials.');
      // --pat on an open runtime has nothing to mint with.
      const pat = await runCli(['connect', '--url', rt.url, '--pat', '--json'], box);
      expect(pat.code).toBe(1);
      expect(jsonOf(pat).error).toContain('refuses anonymous minting');
    } finally {
      await rt.stop();
    }
  });

  it('runtime without MCP: a clear error naming mcp_server', async () => {
    const rt = await startRuntime({ env: { OS_SECURITY_KEY: KEY } });
    try {
      installClients(box);
      const r = await runCli(['connect', '--url', rt.url, '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
      expect(r.code).toBe(1);
      expect(jsonOf(r).error).toContain('but its MCP server is not enabled');
      expect(jsonOf(r).error).toContain('mcp_server: true');
    } finally {
      await rt.stop();
    }
  });

  it('JWT runtime: an admin JWT mints, and the tokens work', async () => {
    const rt = await startRuntime({ mcp_server: true, authorization: true, authorization_config: { verification_keys: [rsa.publicPem] } });
    try {
      const p = installClients(box);
      const admin = await sign(rsa, { claims: { scopes: ['agent_os:admin'], sub: 'admin' } });
      const r = await runCli(['connect', '--url', rt.url, '--clients', 'codex', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: admin } });
      expect(r.code).toBe(0);
      expect((jsonOf(r).results as Json[])[0]).toMatchObject({ client: 'cli-agent', status: 'connected', account: { name: 'cli-agent' } });
      expect(jsonOf(r).os).toMatchObject({ auth_mode: 'jwt' });
      const token = readFileSync(p.codex, 'utf8').match(/Bearer (svc_pat_\w+)/)![1]!;
      expect(await mcpStatus(rt, token)).toBe(200);
    } finally {
      await rt.stop();
    }
  });

  describe('OAuth-protected MCP', () => {
    let rt: TestRuntime;
    let admin: string;
    beforeAll(async () => {
      rt = await startRuntime({
        name: 'OAuth OS',
        mcp_server: { oauth: { authorization_servers: ['https://login.example.com'] } },
        authorization_config: { verification_keys: [rsa.publicPem] },
      });
      admin = await sign(rsa, { claims: { scopes: ['agent_os:admin'], sub: 'admin' } });
    });
    afterAll(async () => {
      await rt.stop();
    });

    it('writes tokenless entries, reports needs-login with sign-in steps, and creates no account', async () => {
      const p = installClients(box);
      const r = await runCli(['connect', '--url', rt.url, '--json'], box);
      expect(r.code).toBe(0);
      const body = jsonOf(r);
      expect(body.os).toMatchObject({ mcp: { oauth: { authorization_servers: ['https://login.example.com'] } } });
      const rows = (body.results as Json[]).filter((row) => !row.auto);
      expect(rows.map((row) => row.status)).toEqual(['needs-login', 'needs-login', 'needs-login']);
      expect(rows[0]!.verify).toEqual({ ok: true, tools: 0, status_code: 401, error: null, oauth_challenge: true });
      expect(rows[0]!.instructions).toEqual(['Run: claude mcp login oauth-os  (or /mcp -> Authenticate inside a session)']);
      expect(rows[1]!.instructions).toEqual(['Run: codex mcp login oauth-os']);
      expect(rows.every((row) => row.account === undefined)).toBe(true);
      expect(readJson(p.claudeUser).mcpServers['oauth-os']).toEqual({ type: 'http', url: `${rt.url}/mcp` });
      expect(await activeAccounts(rt, admin)).toEqual([]);
      const again = await runCli(['connect', '--url', rt.url, '--json'], box);
      expect((jsonOf(again).results as Json[]).map((row) => row.status)).toEqual(['already-connected', 'already-connected', 'already-connected']);
    });

    it('replaces a stale token entry by a tokenless one and says the account behind it stays valid', async () => {
      const p = installClients(box);
      const stale = { type: 'http', url: `${rt.url}/mcp`, headers: { Authorization: 'Bearer svc_pat_stale' } };
      writeFileSync(p.claudeUser, JSON.stringify({ mcpServers: { 'oauth-os': stale } }));
      const r = await runCli(['connect', '--url', rt.url, '--clients', 'terminal', '--json'], box);
      expect(r.code).toBe(0);
      expect((jsonOf(r).results as Json[])[0]).toMatchObject({ status: 'needs-login', replaced_token_entry: true });
      expect(readJson(p.claudeUser).mcpServers['oauth-os']).toEqual({ type: 'http', url: `${rt.url}/mcp` });
    });

    it('refuses token-shaping flags without --pat; --pat mints anyway', async () => {
      const p = installClients(box);
      const shaped = await runCli(['connect', '--url', rt.url, '--name', 'x', '--json'], box);
      expect(shaped.code).toBe(1);
      expect(jsonOf(shaped)).toEqual({
        error: "--name only shape minted tokens, but this runtime's MCP endpoint is OAuth-protected: apps sign in through the authorization server and nothing is minted.",
        hint: 'Add --pat to mint service-account tokens anyway (for headless clients), or drop --name.',
      });
      const pat = await runCli(['connect', '--url', rt.url, '--pat', '--clients', 'cursor', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: admin } });
      expect(pat.code).toBe(0);
      expect((jsonOf(pat).results as Json[])[0]).toMatchObject({ status: 'connected', account: { name: 'editor' } });
      expect(readJson(p.cursorUser).mcpServers['oauth-os'].headers.Authorization).toMatch(/^Bearer svc_pat_/);
    });
  });
});

/**
 * A runtime that enforces auth on its REST API but serves /mcp to anyone (as runtimes before
 * MCP token enforcement did). The real runtime cannot be configured that way, so a stub plays it.
 */
async function startLeakyMcpRuntime(): Promise<{ url: string; stop(): Promise<void> }> {
  const { createServer } = await import('node:http');
  let minted = 0;
  const server = createServer((req, res) => {
    let raw = '';
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/health') return send(200, { status: 'ok' });
      if (path === '/info') return send(200, { name: 'Leaky', version: '0.0.1', mcp: { enabled: true, path: '/mcp', oauth: null }, auth_mode: 'security_key' });
      if (path === '/service-accounts') {
        if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { detail: 'Invalid authentication token' });
        if (req.method === 'GET') return send(200, { data: [], meta: { page: 1, limit: 1, total_pages: 0, total_count: 0 } });
        minted += 1;
        const { name } = JSON.parse(raw) as { name: string };
        const token = `svc_pat_leaky${minted}`;
        return send(201, { id: `id-${minted}`, name, token_prefix: token.slice(0, 16), scopes: [], created_at: 1, expires_at: null, token });
      }
      if (path === '/mcp') {
        const message = JSON.parse(raw) as { id?: number; method: string };
        if (message.method === 'initialize') return send(200, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-03-26', capabilities: {} } });
        if (message.method === 'tools/list') {
          // Answer as an event stream, as streamable-HTTP servers may.
          res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'run_agent' }] } })}\n\n`);
          return undefined;
        }
        return res.writeHead(202).end();
      }
      return send(404, { detail: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('svc connect (warnings, remote hosts, prompts)', () => {
  let box: Sandbox;
  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('warns when the runtime accepts unauthenticated MCP although it enforces auth elsewhere', async () => {
    const stub = await startLeakyMcpRuntime();
    try {
      installClients(box);
      const r = await runCli(['connect', '--url', stub.url, '--clients', 'cursor', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
      expect(r.code).toBe(0);
      const body = jsonOf(r);
      expect(body.warning).toContain('accepts unauthenticated MCP requests');
      expect((body.results as Json[])[0]).toMatchObject({ status: 'connected', verify: { ok: true, tools: 1 } });
      const human = await runCli(['connect', '--url', stub.url, '--clients', 'codex'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
      expect(human.stderr).toContain('accepts unauthenticated MCP requests');
    } finally {
      await stub.stop();
    }
  });

  describe('a remote runtime (through a loopback proxy)', () => {
    let rt: TestRuntime;
    let proxy: TestProxy;
    let remote: string;
    beforeAll(async () => {
      rt = await startRuntime({ name: 'Remote', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
      proxy = await startProxy(rt.port);
      remote = `http://${REMOTE_HOST}:${rt.port}`;
    });
    afterAll(async () => {
      await proxy.stop();
      await rt.stop();
    });

    it('refuses to send credentials over plain HTTP unless --allow-http', async () => {
      const p = installClients(box);
      const env = { HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY };
      const refused = await runCli(['connect', '--url', remote, '--clients', 'cursor', '--json'], { ...box, env });
      expect(refused.code).toBe(1);
      expect(jsonOf(refused)).toEqual({
        error: `Refusing to send the admin credential and minted tokens to ${remote} over plaintext HTTP.`,
        hint: 'Use an https:// URL, or pass --allow-http to override on a trusted private network.',
      });
      expect(existsSync(p.cursorUser)).toBe(false);
      const allowed = await runCli(['connect', '--url', remote, '--clients', 'cursor', '--allow-http', '--json'], { ...box, env });
      expect(allowed.code).toBe(0);
      expect(readJson(p.cursorUser).mcpServers.remote.url).toBe(`${remote}/mcp`);
    });

    it('a remote RUNTIME_URL from a .env file needs --yes when nothing can ask', async () => {
      installClients(box);
      writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
      const env = { HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY };
      const untrusted = await runCli(['connect', '--clients', 'cursor', '--allow-http', '--json'], { ...box, env });
      expect(untrusted.code).toBe(1);
      expect(jsonOf(untrusted)).toEqual({ error: `The URL in .env points to a remote host (${remote}).`, hint: 'Pass --url to target it explicitly, or --yes to trust it.' });
      // A different client than the previous case: that one's account exists on this runtime.
      const trusted = await runCli(['connect', '--clients', 'codex', '--allow-http', '-y', '--json'], { ...box, env });
      expect(trusted.code).toBe(0);
      expect(jsonOf(trusted).os).toMatchObject({ url_source: 'env-file', url_source_file: '.env' });
    });
  });

  it('[TTY] asks before revoking and re-minting an account of yours', async () => {
    const rt = await startRuntime({ name: 'Customer Support', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
    try {
      const p = installClients(box);
      const first = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'editor' } });
      // The same runtime under another spelling of its address: the entry is replaced, and its
      // account (this user's: the token is in their config) is re-minted only if they agree.
      const localhost = `http://localhost:${new URL(rt.url).port}/mcp`;
      writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { 'customer-support': { url: localhost, headers: { Authorization: `Bearer ${first.body.token}` } } } }));
      const r = await runCliTty(
        ['connect', '--url', rt.url, '--clients', 'cursor'],
        [{ waitFor: "◆  Service account 'editor' already exists. Revoke and re-mint it?", keys: '\u001b[D\r' }],
        { ...box, env: { SVC_ADMIN_TOKEN: KEY } },
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/connected +Cursor/);
      expect(await mcpStatus(rt, first.body.token)).toBe(401);
      expect(await mcpStatus(rt, bearer(readJson(p.cursorUser).mcpServers['customer-support'].headers.Authorization))).toBe(200);
    } finally {
      await rt.stop();
    }
  });
});

describe('[TTY] interactive discovery', () => {
  it('offers every live runtime (env file, client configs) and connects to the one picked', async () => {
    await ensureBuilt();
    const box = sandbox();
    const alpha = await startRuntime({ name: 'Alpha', mcp_server: true });
    const beta = await startRuntime({ name: 'Beta', mcp_server: true });
    try {
      const p = installClients(box);
      writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${alpha.url}\n`);
      const betaEntry = { url: `${beta.url}/mcp` };
      writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { beta: betaEntry } }));
      const r = await runCliTty(['connect', '--clients', 'cursor'], [{ waitFor: '◆  Found multiple running runtimes. Which one do you want to connect?', keys: '\r' }], box);
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines.some((l) => l.includes(alpha.url) && /local {2}"Alpha" \(from RUNTIME_URL in \.env\)/.test(l))).toBe(true);
      expect(lines.some((l) => l.includes(beta.url) && /local {2}"Beta" \(configured in Cursor\)/.test(l))).toBe(true);
      expect(readJson(p.cursorUser).mcpServers).toEqual({ beta: betaEntry, alpha: { url: `${alpha.url}/mcp` } });
    } finally {
      await alpha.stop();
      await beta.stop();
      box.cleanup();
    }
  });
});
