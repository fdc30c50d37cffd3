/**
 * `svc tokens create|list|revoke` over the service-accounts wire contract.
 *
 * The runtime's service-accounts routes land with the `auth` branch. Until then the server
 * under test is a loopback stub speaking the documented contract; `startTokenServer` is the
 * single place to swap in the real runtime (startRuntime with OS_SECURITY_KEY for key mode).
 * Assertions only use what the wire shows (requests are read from the stub's log where the
 * real runtime would need a request hook; see `sentTo`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { REMOTE_HOST, startProxy, type TestProxy } from './support/proxy.js';
import { startServiceAccountsStub, type StubAuthMode, type TokenServer } from './support/service-accounts-stub.js';

const KEY = 'test-admin-key';
const ACCOUNT_KEYS = ['id', 'name', 'principal', 'token_prefix', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'];
const DEFAULT_SCOPES = ['agents:run', 'teams:run', 'workflows:run', 'sessions:read', 'config:read'];

function startTokenServer(mode: StubAuthMode): Promise<TokenServer> {
  return startServiceAccountsStub(mode, KEY);
}

function sentTo(server: TokenServer, method: string): TokenServer['requests'] {
  return server.requests.filter((r) => r.method === method && r.path.startsWith('/service-accounts'));
}

describe('svc tokens (security-key runtime)', () => {
  let server: TokenServer;
  let box: Sandbox;
  const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) =>
    runCli(['tokens', ...args, '--url', server.url], { ...box, env });

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    server = await startTokenServer('security_key');
    box = sandbox();
  });
  afterEach(async () => {
    await server.stop();
    box.cleanup();
  });

  it('create --json prints the account plus the token, once, with default scopes and 90 days', async () => {
    const r = await run(['create', 'ci-bot', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const body = jsonOf(r);
    expect(Object.keys(body)).toEqual([...ACCOUNT_KEYS, 'token']);
    expect(body).toMatchObject({ name: 'ci-bot', principal: 'sa:ci-bot', scopes: DEFAULT_SCOPES, last_used_at: null, revoked_at: null });
    const token = body.token as string;
    expect(token).toMatch(/^svc_pat_[0-9A-Za-z]+$/);
    expect(body.token_prefix).toBe(token.slice(0, 16));
    expect(body.expires_at).toBe((body.created_at as number) + 90 * 86_400);
    const [post] = sentTo(server, 'POST');
    expect(post?.body).toEqual({ name: 'ci-bot', expires_in_days: 90 });
    expect(post?.authorization).toBe(`Bearer ${KEY}`);
    expect(r.stdout.split(token).length - 1).toBe(1);
  });

  it('sends repeated --scopes/-s as {scope, effect}, --expires never and --privileged', async () => {
    const r = await run(['create', 'deployer', '-s', 'agents:run', '--scopes', 'agents:write', '--expires', 'never', '--privileged', '--json']);
    expect(r.code).toBe(0);
    expect(sentTo(server, 'POST')[0]?.body).toEqual({
      name: 'deployer',
      scopes: [{ scope: 'agents:run', effect: 'allow' }, { scope: 'agents:write', effect: 'allow' }],
      never_expires: true,
      allow_privileged_scopes: true,
    });
    expect(jsonOf(r)).toMatchObject({ scopes: ['agents:run', 'agents:write'], expires_at: null });
  });

  it.each([
    ['30', 30],
    ['7d', 7],
  ])('--expires %s sends expires_in_days %i', async (value, days) => {
    const r = await run(['create', 'short', '--expires', value, '--json']);
    expect(r.code).toBe(0);
    expect(sentTo(server, 'POST')[0]?.body).toEqual({ name: 'short', expires_in_days: days });
  });

  it('surfaces the refusal of privileged scopes without --privileged', async () => {
    const r = await run(['create', 'writer', '-s', 'agents:write', '--json']);
    expect(r.code).toBe(1);
    const body = jsonOf(r);
    expect(body.error).toMatch(/^Could not create service account 'writer': Privileged scope\(s\) require allow_privileged_scopes=true: agents:write/);
    expect(body.hint).toContain('--privileged');
  });

  it('reports a duplicate active name as a conflict', async () => {
    expect((await run(['create', 'dup', '--json'])).code).toBe(0);
    const r = await run(['create', 'dup', '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: "A service account named 'dup' already exists.",
      hint: 'Revoke it first (svc tokens revoke dup) or pick a different name.',
    });
  });

  it('rejects an invalid name before any network call', async () => {
    for (const name of ['Bad', '_x', 'a.b', 'a'.repeat(64)]) {
      const r = await run(['create', name, '--json']);
      expect(r.code).toBe(1);
      expect(jsonOf(r)).toEqual({ error: `Invalid service account name: ${name}`, hint: expect.stringContaining('lowercase slug') });
    }
    expect(server.requests).toEqual([]);
  });

  it('falls back to OS_SECURITY_KEY, and SVC_ADMIN_TOKEN wins when both are set', async () => {
    expect((await run(['create', 'a1', '--json'], { OS_SECURITY_KEY: KEY })).code).toBe(0);
    const r = await run(['create', 'a2', '--json'], { SVC_ADMIN_TOKEN: 'wrong', OS_SECURITY_KEY: KEY });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: 'The runtime rejected the admin credential (Invalid authentication token).',
      hint: expect.stringContaining('SVC_ADMIN_TOKEN'),
    });
  });

  it('fails without a credential when it cannot prompt, sending nothing', async () => {
    for (const args of [['create', 'x', '--json'], ['list', '--json'], ['revoke', 'x', '--json']]) {
      const r = await run(args, {});
      expect(r.code).toBe(1);
      expect(jsonOf(r)).toEqual({
        error: 'This runtime requires an admin credential (auth mode: security_key).',
        hint: expect.stringContaining('SVC_ADMIN_TOKEN (or OS_SECURITY_KEY)'),
      });
    }
    expect(sentTo(server, 'POST')).toEqual([]);
    expect(sentTo(server, 'GET')).toEqual([]);
  });

  it('prints the token once in human mode, with the warning on stderr', async () => {
    const r = await run(['create', 'human', '-s', 'agents:run']);
    expect(r.code).toBe(0);
    const token = server.accounts[0] ? r.stdout.match(/svc_pat_[0-9A-Za-z]+/)?.[0] : undefined;
    expect(token).toBeDefined();
    expect(r.stdout).toContain("Service account 'human' created (principal: sa:human).");
    expect(r.stdout).toContain('Scopes: agents:run');
    expect(r.stdout).toMatch(/Expires: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(r.stderr).toContain('This token is shown once and cannot be retrieved again. Save it now:');
    expect(`${r.stdout}${r.stderr}`.split(token ?? '-').length - 1).toBe(1);
  });

  it('list --json returns every account across pages, revoked included, never a token', async () => {
    const empty = await run(['list', '--json']);
    expect(jsonOf(empty)).toEqual({ service_accounts: [] });
    const human = await run(['list']);
    expect(human.stdout).toContain('No service accounts found.');
    for (const name of ['one', 'two']) expect((await run(['create', name, '--json'])).code).toBe(0);
    expect((await run(['revoke', 'one', '--json'])).code).toBe(0);
    for (let i = 0; i < 150; i += 1) {
      server.accounts.push({ ...server.accounts[1]!, id: `bulk-${i}`, name: `bulk-${i}`, revoked_at: null });
    }
    const r = await run(['list', '--json']);
    expect(r.code).toBe(0);
    const list = jsonOf(r).service_accounts as Record<string, unknown>[];
    expect(list).toHaveLength(152);
    expect(list.every((a) => Object.keys(a).join() === ACCOUNT_KEYS.join())).toBe(true);
    expect(list.find((a) => a.name === 'one')?.revoked_at).toEqual(expect.any(Number));
    // Display prefixes are 16 characters; a full token is never listed.
    expect(r.stdout).not.toMatch(/svc_pat_[0-9A-Za-z]{9,}/);
    expect(r.stdout).not.toContain('"token"');
  });

  it('list prints a table in human mode', async () => {
    expect((await run(['create', 'tabled', '--json'])).code).toBe(0);
    const r = await run(['list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Name\s+Token\s+Scopes\s+Expires\s+Last used\s+Status/);
    expect(r.stdout).toMatch(/tabled\s+svc_pat_\w{8}…\s+agents:run, teams:run/);
    expect(r.stdout).toContain('active');
  });

  it('revoke --json revokes without prompting and stamps revoked_at', async () => {
    expect((await run(['create', 'gone', '--json'])).code).toBe(0);
    const before = Math.floor(Date.now() / 1000);
    const r = await run(['revoke', 'gone', '--json']);
    expect(r.code).toBe(0);
    const revoked = jsonOf(r).revoked as Record<string, unknown>;
    expect(Object.keys(revoked)).toEqual(ACCOUNT_KEYS);
    expect(revoked.name).toBe('gone');
    expect(revoked.revoked_at as number).toBeGreaterThanOrEqual(before);
    expect(sentTo(server, 'DELETE').map((q) => q.path)).toEqual([`/service-accounts/${server.accounts[0]?.id}`]);
    const again = await run(['revoke', 'gone', '--json']);
    expect(again.code).toBe(1);
    expect(jsonOf(again)).toEqual({ error: "No service account named 'gone' found.", hint: expect.stringContaining('svc tokens list') });
  });

  it('revoke in human mode without a TTY skips the confirmation', async () => {
    expect((await run(['create', 'quiet', '--json'])).code).toBe(0);
    const r = await run(['revoke', 'quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Service account 'quiet' revoked. Existing tokens stop working on their next request.");
    expect(server.accounts[0]?.revoked_at).toEqual(expect.any(Number));
  });

  it('a revoked name can be created again', async () => {
    expect((await run(['create', 'reuse', '--json'])).code).toBe(0);
    expect((await run(['revoke', 'reuse', '--json'])).code).toBe(0);
    expect((await run(['create', 'reuse', '--json'])).code).toBe(0);
  });
});

describe('svc tokens (open runtime)', () => {
  let server: TokenServer;
  let box: Sandbox;

  beforeAll(async () => {
    await ensureBuilt();
    server = await startTokenServer('none');
    box = sandbox();
  });
  afterAll(async () => {
    await server.stop();
    box.cleanup();
  });

  it('refuses to mint when the REST API is open, before asking for anything', async () => {
    const r = await runCli(['tokens', 'create', 'x', '--url', server.url, '--json'], box);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: 'This runtime cannot mint tokens: its REST API has no authentication configured, and the server refuses anonymous minting.',
      hint: 'Set OS_SECURITY_KEY (or configure JWT auth) on the server to enable minting.',
    });
    expect(sentTo(server, 'POST')).toEqual([]);
  });

  it('says only a service-account token can mint when another credential is exported', async () => {
    const r = await runCli(['tokens', 'create', 'x', '--url', server.url, '--json'], { ...box, env: { OS_SECURITY_KEY: 'k' } });
    expect(r.code).toBe(1);
    expect(jsonOf(r).error).toContain('only a service-account token (svc_pat_...)');
  });

  it('lists without a credential and sends no Authorization header', async () => {
    const r = await runCli(['tokens', 'list', '--url', server.url, '--json'], box);
    expect(r.code).toBe(0);
    expect(jsonOf(r)).toEqual({ service_accounts: [] });
    expect(sentTo(server, 'GET').every((q) => q.authorization === undefined)).toBe(true);
  });
});

describe('svc tokens against a remote host (through a loopback proxy)', () => {
  let server: TokenServer;
  let proxy: TestProxy;
  let box: Sandbox;
  let remote = '';

  beforeAll(async () => {
    await ensureBuilt();
    server = await startTokenServer('security_key');
    proxy = await startProxy(server.port);
    remote = `http://${REMOTE_HOST}:${server.port}`;
  });
  afterAll(async () => {
    await proxy.stop();
    await server.stop();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  const env = (extra: Record<string, string> = {}) => ({ HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY, ...extra });

  it('will not trust a remote URL from .env without --yes when it cannot ask', async () => {
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
    const r = await runCli(['tokens', 'list', '--json'], { ...box, env: env() });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: `The URL in .env points to a remote host (${remote}).`,
      hint: 'Pass --url to target it explicitly, or --yes to trust it.',
    });
    expect(sentTo(server, 'GET')).toEqual([]);
  });

  it('with --yes, still refuses to send the credential over plain HTTP without --allow-http', async () => {
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
    let r = await runCli(['tokens', 'list', '--yes', '--json'], { ...box, env: env() });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: `Refusing to send the admin credential to ${remote} over plaintext HTTP.`,
      hint: 'Use an https:// URL, or pass --allow-http to override on a trusted private network.',
    });
    expect(sentTo(server, 'GET')).toEqual([]);
    r = await runCli(['tokens', 'list', '-y', '--allow-http', '--json'], { ...box, env: env() });
    expect(r.code).toBe(0);
    expect(jsonOf(r)).toEqual({ service_accounts: [] });
    expect(proxy.seen).toContain(`${remote}/service-accounts?page=1&limit=100`);
  });

  it('refuses to fetch a token over plain HTTP from an explicit remote --url', async () => {
    const r = await runCli(['tokens', 'create', 'remote', '--url', remote, '--json'], { ...box, env: env() });
    expect(r.code).toBe(1);
    expect(jsonOf(r).error).toBe(`Refusing to send a token to ${remote} over plaintext HTTP.`);
    expect(sentTo(server, 'POST')).toEqual([]);
    const ok = await runCli(['tokens', 'create', 'remote', '--url', remote, '--allow-http', '--json'], { ...box, env: env() });
    expect(ok.code).toBe(0);
    expect(jsonOf(ok).name).toBe('remote');
  });
});
