/**
 * `svc disconnect`: offline removal by URL match or by name, against real client files, and
 * --revoke against a REAL runtime (the revoked token then fails there).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { installClients, paths, readJson } from './support/clients.js';
import { api, deadPort, mcpStatus, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

describe('svc disconnect (offline)', () => {
  let box: Sandbox;
  let p: ReturnType<typeof paths>;
  let dead: string;

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    box = sandbox();
    p = installClients(box);
    dead = `http://127.0.0.1:${await deadPort()}`;
  });
  afterEach(() => box.cleanup());

  it('removes every entry pointing at the target and nothing else, in every scope', async () => {
    const claude = {
      numStartups: 7,
      mcpServers: { mine: { type: 'http', url: `${dead}/mcp`, headers: { Authorization: 'Bearer svc_pat_a' } }, other: { type: 'http', url: 'https://other.example/mcp' } },
      projects: { [box.cwd]: { mcpServers: { local: { type: 'http', url: `${dead}/mcp` } } }, '/x': { mcpServers: { local: { url: `${dead}/mcp` } } } },
    };
    writeFileSync(p.claudeUser, JSON.stringify(claude, null, 2));
    const toml = `# top\n[mcp_servers.mine]\nurl = "${dead}/mcp"\n\n# neighbour\n[mcp_servers.keep]\nurl = "http://127.0.0.1:1/mcp"\n`;
    writeFileSync(p.codex, toml);
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { keep: { url: 'https://keep.example/mcp' } } }));
    const cursorBefore = readFileSync(p.cursorUser, 'utf8');
    const r = await runCli(['disconnect', '--url', dead, '--json'], box);
    expect(r.code).toBe(0);
    const body = jsonOf(r);
    expect(Object.keys(body)).toEqual(['os', 'server_name', 'target_urls', 'results', 'revocations', 'exit_code']);
    expect(body).toMatchObject({ os: null, server_name: null, target_urls: [dead], revocations: [], exit_code: 0 });
    expect(body.results).toEqual([
      { client: 'terminal-agent', status: 'removed', error: null, removed: ['local', 'mine'], location: `${p.claudeUser} (local scope), ${p.claudeUser} (user scope)` },
      { client: 'cli-agent', status: 'removed', error: null, removed: ['mine'], location: p.codex },
      { client: 'editor', status: 'not-found', error: null },
    ]);
    const after = readJson(p.claudeUser);
    expect(after.numStartups).toBe(7);
    expect(after.mcpServers).toEqual({ other: claude.mcpServers.other });
    expect(after.projects['/x']).toEqual(claude.projects['/x']);
    expect(readFileSync(p.codex, 'utf8')).toBe('# top\n\n# neighbour\n[mcp_servers.keep]\nurl = "http://127.0.0.1:1/mcp"\n');
    expect(readFileSync(p.cursorUser, 'utf8')).toBe(cursorBefore);
  });

  it('human mode says the runtime is offline and that removed tokens stay valid', async () => {
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { mine: { url: `${dead}/mcp`, headers: { Authorization: 'Bearer svc_pat_a' } } } }));
    const r = await runCli(['disconnect', '--url', dead], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`No running runtime found; removing entries pointing at: ${dead}`);
    expect(r.stdout).toMatch(/removed +Cursor \('mine'\) +-> +~\/\.cursor\/mcp\.json/);
    expect(r.stdout).toMatch(/not found +Claude Code +\(no matching entry\)/);
    expect(r.stderr).toContain('Restart Cursor to drop the connection.');
    expect(r.stdout).toContain('Tokens minted for these apps stay valid. Revoke them with: svc tokens revoke <name>');
    expect(r.stderr).not.toContain('stay valid');
  });

  it('--server-name removes exactly that name wherever it points, with no network', async () => {
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { named: { url: 'https://anywhere.example/mcp' }, other: { url: 'https://anywhere.example/mcp' } } }));
    const r = await runCli(['disconnect', '--server-name', 'named', '--clients', 'cursor,codex,chat-app-a', '--json'], box);
    expect(r.code).toBe(0);
    const body = jsonOf(r);
    expect(body).toMatchObject({ os: null, server_name: 'named', target_urls: null });
    expect(body.results).toEqual([
      { client: 'editor', status: 'removed', error: null, removed: ['named'], location: p.cursorUser },
      { client: 'cli-agent', status: 'not-found', error: null },
      { client: 'chat-app-a', status: 'manual', error: null, instructions: ['Remove the connector in the Claude UI: Settings -> Connectors.'] },
    ]);
    expect(readJson(p.cursorUser).mcpServers).toEqual({ other: { url: 'https://anywhere.example/mcp' } });
  });

  it('a config that does not parse fails for that client (file unchanged); partial runs exit 3, total failure 1', async () => {
    writeFileSync(p.codex, '[broken');
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { named: { url: 'https://a.example/mcp' } } }));
    const partial = await runCli(['disconnect', '--server-name', 'named', '--json'], box);
    expect(partial.code).toBe(3);
    const rows = jsonOf(partial).results as Json[];
    expect(rows.find((row) => row.client === 'cli-agent')).toMatchObject({ status: 'failed', error: expect.stringContaining('the existing TOML does not parse') });
    expect(readFileSync(p.codex, 'utf8')).toBe('[broken');
    const total = await runCli(['disconnect', '--server-name', 'named', '--clients', 'codex', '--json'], box);
    expect(total.code).toBe(1);
  });

  it('refuses a symlinked config and leaves the link and its target alone', async () => {
    const real = join(box.root, 'real-cursor.json');
    writeFileSync(real, JSON.stringify({ mcpServers: { named: { url: 'https://a.example/mcp' } } }));
    mkdirSync(join(box.cwd, '.cursor'));
    const { symlinkSync } = await import('node:fs');
    symlinkSync(real, p.cursorProject);
    const r = await runCli(['disconnect', '--server-name', 'named', '--clients', 'cursor', '--json'], box);
    expect(r.code).toBe(1);
    expect((jsonOf(r).results as Json[])[0]!.error).toContain('symbolic link');
    expect(readJson(real).mcpServers.named).toBeDefined();
  });

  it('invalid --server-name is a usage error', async () => {
    const r = await runCli(['disconnect', '--server-name', 'a b', '--json'], box);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('svc disconnect --revoke (security-key runtime)', () => {
  let rt: TestRuntime;
  let box: Sandbox;
  let p: ReturnType<typeof paths>;

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    rt = await startSqliteRuntime({ name: 'Customer Support', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
    box = sandbox();
    p = installClients(box);
  });
  afterEach(async () => {
    await rt.stop();
    box.cleanup();
  });

  /** An account minted on the runtime and its entry in a client config, as connect leaves them. */
  async function connected(account: string, file: string, withType: boolean): Promise<string> {
    const created = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: account } });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    const entry = { ...(withType ? { type: 'http' } : {}), url: `${rt.url}/mcp`, headers: { Authorization: `Bearer ${token}` } };
    writeFileSync(file, JSON.stringify({ mcpServers: { 'customer-support': entry } }, null, 2));
    return token;
  }

  it('removes the entries and revokes the per-client accounts: the tokens then fail', async () => {
    const env = { SVC_ADMIN_TOKEN: KEY };
    await connected('terminal-agent', p.claudeUser, true);
    const token = await connected('editor', p.cursorUser, false);
    expect(await mcpStatus(rt.url, token)).toBe(200);
    const r = await runCli(['disconnect', '--url', rt.url, '--revoke', '--json'], { ...box, env });
    expect(r.code).toBe(0);
    const body = jsonOf(r);
    expect(body.os).toMatchObject({ url: rt.url });
    expect(body.target_urls).toEqual([rt.url]);
    expect((body.results as Json[]).map((row) => [row.client, row.status])).toEqual([
      ['terminal-agent', 'removed'],
      ['cli-agent', 'not-found'],
      ['editor', 'removed'],
    ]);
    expect(body.revocations).toEqual([
      { account: 'cli-agent', status: 'not-found', error: null },
      { account: 'editor', status: 'revoked', error: null },
      { account: 'terminal-agent', status: 'revoked', error: null },
    ]);
    expect(await mcpStatus(rt.url, token)).toBe(401);
    expect(readJson(p.cursorUser).mcpServers).toEqual({});
  });

  it('--revoke --name revokes the shared account; without a credential it fails before touching anything', async () => {
    const env = { SVC_ADMIN_TOKEN: KEY };
    await connected('team', p.cursorUser, false);
    const before = readFileSync(p.cursorUser, 'utf8');
    const denied = await runCli(['disconnect', '--url', rt.url, '--revoke', '--name', 'team', '--json'], box);
    expect(denied.code).toBe(1);
    expect(jsonOf(denied).error).toBe('This runtime requires an admin credential to revoke service accounts (auth mode: security_key).');
    expect(readFileSync(p.cursorUser, 'utf8')).toBe(before);
    const r = await runCli(['disconnect', '--url', rt.url, '--revoke', '--name', 'team', '--clients', 'cursor', '--json'], { ...box, env });
    expect(r.code).toBe(0);
    expect(jsonOf(r).revocations).toEqual([{ account: 'team', status: 'revoked', error: null }]);
  });

  it('--revoke refuses to send the admin credential over plain HTTP to a remote host', async () => {
    const { REMOTE_HOST, startProxy } = await import('./support/proxy.js');
    const proxy = await startProxy(rt.port);
    try {
      const remote = `http://${REMOTE_HOST}:${rt.port}`;
      writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { 'customer-support': { url: `${remote}/mcp` } } }));
      const before = readFileSync(p.cursorUser, 'utf8');
      const r = await runCli(['disconnect', '--url', remote, '--revoke', '--json'], { ...box, env: { HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY } });
      expect(r.code).toBe(1);
      expect(jsonOf(r)).toMatchObject({ error: `Refusing to send the admin credential to ${remote} over plaintext HTTP.` });
      expect(readFileSync(p.cursorUser, 'utf8')).toBe(before);
      // The same URL from a .env file must also be trusted explicitly (--yes) before revoking.
      writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
      const env = { HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY };
      const untrusted = await runCli(['disconnect', '--revoke', '--allow-http', '--clients', 'cursor', '--json'], { ...box, env });
      expect(untrusted.code).toBe(1);
      expect(jsonOf(untrusted).error).toBe(`The URL in .env points to a remote host (${remote}).`);
      const allowed = await runCli(['disconnect', '--revoke', '--allow-http', '--yes', '--clients', 'cursor', '--json'], { ...box, env });
      expect(allowed.code).toBe(0);
      expect(jsonOf(allowed)).toMatchObject({
        target_urls: [remote],
        results: [{ client: 'editor', status: 'removed', removed: ['customer-support'] }],
        revocations: [{ account: 'editor', status: 'not-found', error: null }],
      });
    } finally {
      await proxy.stop();
    }
  });

  it('--revoke without a reachable runtime still removes the entries, and reports each revocation it could not do (exit 3)', async () => {
    const gone = `http://127.0.0.1:${await deadPort()}`;
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { 'customer-support': { url: `${gone}/mcp`, headers: { Authorization: 'Bearer svc_pat_gone' } } } }));
    const r = await runCli(['disconnect', '--url', gone, '--revoke', '--clients', 'cursor', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(r.code).toBe(3);
    const body = jsonOf(r);
    expect(body).toMatchObject({ os: null, server_name: null, target_urls: [gone], exit_code: 3 });
    expect(body.results).toEqual([{ client: 'editor', status: 'removed', error: null, removed: ['customer-support'], location: p.cursorUser }]);
    expect(body.revocations).toEqual([
      {
        account: 'editor',
        status: 'failed',
        error: `Not revoked: No running runtime found (tried: ${gone}). Revoke it once the runtime is back: svc tokens revoke editor --url ${gone}`,
      },
    ]);
    expect(readJson(p.cursorUser).mcpServers).toEqual({});
    // By name, with nothing to discover: the named entry and the legacy one of the same runtime go.
    writeFileSync(
      p.cursorUser,
      JSON.stringify({ mcpServers: { mine: { url: `${gone}/mcp` }, svc: { url: `http://localhost:${new URL(gone).port}/mcp` }, other: { url: 'https://other.example/mcp' } } }),
    );
    writeFileSync(p.codex, `[mcp_servers.svc]\nurl = "https://elsewhere.example/mcp"\n`);
    const named = await runCli(['disconnect', '--server-name', 'mine', '--revoke', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY, RUNTIME_URL: gone } });
    expect(named.code).toBe(3);
    expect(jsonOf(named).results).toEqual([
      { client: 'terminal-agent', status: 'not-found', error: null },
      { client: 'cli-agent', status: 'not-found', error: null },
      { client: 'editor', status: 'removed', error: null, removed: ['mine', 'svc'], location: p.cursorUser },
    ]);
    expect(readJson(p.cursorUser).mcpServers).toEqual({ other: { url: 'https://other.example/mcp' } });
    expect(readFileSync(p.codex, 'utf8')).toBe(`[mcp_servers.svc]\nurl = "https://elsewhere.example/mcp"\n`);
    const human = await runCli(['disconnect', '--url', gone, '--revoke', '--clients', 'cursor'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/revoke failed +'editor' +\(Not revoked: No running runtime found/);
  });

  it('removes legacy entries that point at the runtime, and only those', async () => {
    const token = await connected('editor', p.cursorUser, false);
    const doc = readJson(p.cursorUser);
    doc.mcpServers.svc = { url: `${rt.url}/mcp` };
    doc.mcpServers.keep = { url: 'https://keep.example/mcp' };
    writeFileSync(p.cursorUser, JSON.stringify(doc));
    writeFileSync(p.claudeUser, JSON.stringify({ mcpServers: { svc: { type: 'http', url: 'https://elsewhere.example/mcp' } } }));
    const r = await runCli(['disconnect', '--url', rt.url, '--clients', 'cursor,terminal', '--json'], box);
    expect(r.code).toBe(0);
    expect(jsonOf(r).results).toEqual([
      { client: 'editor', status: 'removed', error: null, removed: ['customer-support', 'svc'], location: p.cursorUser },
      { client: 'terminal-agent', status: 'not-found', error: null },
    ]);
    expect(readJson(p.cursorUser).mcpServers).toEqual({ keep: { url: 'https://keep.example/mcp' } });
    expect(readJson(p.claudeUser).mcpServers.svc).toEqual({ type: 'http', url: 'https://elsewhere.example/mcp' });
    expect(await mcpStatus(rt.url, token)).toBe(200);
  });

  it('revokes only accounts whose token is in your configs; another one is reported, and revoked with --force', async () => {
    // An account of the client's name that this user's configs know nothing of.
    expect((await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'editor' } })).status).toBe(201);
    const kept = await runCli(['disconnect', '--url', rt.url, '--revoke', '--clients', 'cursor', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(kept.code).toBe(3);
    expect(jsonOf(kept).revocations).toEqual([
      {
        account: 'editor',
        status: 'failed',
        error:
          'Not revoked: its token is in none of your client configs and it was not minted from here, so another user or machine may be using it. If it is yours, re-run with --force or use: svc tokens revoke editor',
      },
    ]);
    const forced = await runCli(['disconnect', '--url', rt.url, '--revoke', '--force', '--clients', 'cursor', '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(forced.code).toBe(0);
    expect(jsonOf(forced).revocations).toEqual([{ account: 'editor', status: 'revoked', error: null }]);
  });
});

describe('svc disconnect (loopback spellings)', () => {
  it('an entry written for 127.0.0.1 is found under localhost, with or without the runtime running', async () => {
    await ensureBuilt();
    const box = sandbox();
    try {
      const p = installClients(box);
      const port = await deadPort();
      writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { a: { url: `http://127.0.0.1:${port}/mcp` }, b: { url: `http://127.0.0.1:${port + 1}/mcp` } } }));
      const r = await runCli(['disconnect', '--url', `http://localhost:${port}`, '--json'], box);
      expect(r.code).toBe(0);
      expect((jsonOf(r).results as Json[]).find((row) => row.client === 'editor')).toEqual({ client: 'editor', status: 'removed', error: null, removed: ['a'], location: p.cursorUser });
      expect(Object.keys(readJson(p.cursorUser).mcpServers)).toEqual(['b']);
    } finally {
      box.cleanup();
    }
  });
});
