/**
 * `svc tokens create|list|revoke` against a REAL runtime on SQLite, in each auth mode.
 *
 * What the CLI sent is checked through what the server then holds and does: the account as the
 * admin API lists it (scopes, expires_at, revoked_at), and the minted token being accepted,
 * held to its scopes, or refused after revocation on the runtime's own scoped routes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sign, signingKey, type SigningKey } from '../../runtime/test/support/jwt.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { REMOTE_HOST, startProxy, type TestProxy } from './support/proxy.js';
import { api, deadPort, startSqliteRuntime, tempSqlite, type TestRuntime, type TestSqlite } from './support/runtime.js';

const KEY = 'test-admin-key';
const ACCOUNT_KEYS = ['id', 'name', 'principal', 'token_prefix', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'];
const DEFAULT_SCOPES = ['agents:run', 'teams:run', 'workflows:run', 'sessions:read', 'config:read'];

/** Every account the runtime holds (revoked ones included), as its admin API lists them. */
async function serverAccounts(rt: TestRuntime, credential: string): Promise<Record<string, any>[]> {
  const all: Record<string, any>[] = [];
  for (let page = 1; ; page += 1) {
    const res = await api(rt.url, 'GET', `/service-accounts?limit=100&page=${page}`, { token: credential });
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    if (page >= res.body.meta.total_pages) return all;
  }
}

/** The status a scoped route answers to `token` (GET /config needs config:read). */
async function statusWith(rt: TestRuntime, token: string, path = '/config'): Promise<number> {
  return (await api(rt.url, 'GET', path, { token })).status;
}

describe('svc tokens (security-key runtime)', () => {
  let rt: TestRuntime;
  let box: Sandbox;
  const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) =>
    runCli(['tokens', ...args, '--url', rt.url], { ...box, env });
  const accounts = () => serverAccounts(rt, KEY);
  const account = async (name: string) => (await accounts()).find((a) => a.name === name);

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    rt = await startSqliteRuntime({ env: { OS_SECURITY_KEY: KEY } });
    box = sandbox();
  });
  afterEach(async () => {
    await rt.stop();
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
    expect(r.stdout.split(token).length - 1).toBe(1);
    // The server holds exactly that account, and the token works within its scopes only.
    const held = await accounts();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ id: body.id, name: 'ci-bot', scopes: DEFAULT_SCOPES, expires_at: body.expires_at, revoked_at: null });
    expect(await statusWith(rt, token)).toBe(200);
    expect(await statusWith(rt, token, '/agents')).toBe(403);
  });

  it('grants repeated --scopes/-s as given, --expires never and --privileged', async () => {
    const r = await run(['create', 'deployer', '-s', 'agents:run', '--scopes', 'agents:write', '--expires', 'never', '--privileged', '--json']);
    expect(r.code).toBe(0);
    const body = jsonOf(r);
    expect(body).toMatchObject({ scopes: ['agents:run', 'agents:write'], expires_at: null });
    expect(await account('deployer')).toMatchObject({ scopes: ['agents:run', 'agents:write'], expires_at: null, revoked_at: null });
    // Not a default token: config:read was not granted.
    expect(await statusWith(rt, body.token as string)).toBe(403);
  });

  it.each([
    ['30', 30],
    ['7d', 7],
  ])('--expires %s makes the account expire in %i days', async (value, days) => {
    const r = await run(['create', 'short', '--expires', value, '--json']);
    expect(r.code).toBe(0);
    const held = await account('short');
    expect(held?.expires_at - held?.created_at).toBe(days * 86_400);
    expect(held?.scopes).toEqual(DEFAULT_SCOPES);
    expect(jsonOf(r).expires_at).toBe(held?.expires_at);
  });

  it('surfaces the refusal of privileged scopes without --privileged', async () => {
    const r = await run(['create', 'writer', '-s', 'agents:write', '--json']);
    expect(r.code).toBe(1);
    const body = jsonOf(r);
    expect(body.error).toMatch(/^Could not create service account 'writer': Privileged scope\(s\) require allow_privileged_scopes=true: agents:write/);
    expect(body.hint).toContain('--privileged');
    expect(await accounts()).toEqual([]);
  });

  it('surfaces an unknown scope as the server words it', async () => {
    const r = await run(['create', 'odd', '-s', 'agents:fly', '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: "Could not create service account 'odd': Invalid scope(s): agents:fly", hint: 'Fix the request and re-run.' });
    expect(await accounts()).toEqual([]);
  });

  it('surfaces a request the server rejects as invalid (422) with its field message', async () => {
    const r = await run(['create', 'toolong', '-s', 'x'.repeat(201), '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: "Could not create service account 'toolong': Validation failed at json.scopes.0.scope: Too big: expected string to have <=200 characters",
      hint: 'Fix the request and re-run.',
    });
    expect(await accounts()).toEqual([]);
  });

  it('reports a duplicate active name as a conflict', async () => {
    expect((await run(['create', 'dup', '--json'])).code).toBe(0);
    const r = await run(['create', 'dup', '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: "A service account named 'dup' already exists.",
      hint: 'Revoke it first (svc tokens revoke dup) or pick a different name.',
    });
    expect((await accounts()).map((a) => a.name)).toEqual(['dup']);
  });

  it('rejects an invalid name before any network call', async () => {
    const nowhere = `http://127.0.0.1:${await deadPort()}`;
    for (const name of ['Bad', '_x', 'a.b', 'a'.repeat(64)]) {
      const r = await run(['create', name, '--json']);
      expect(r.code).toBe(1);
      expect(jsonOf(r)).toEqual({ error: `Invalid service account name: ${name}`, hint: expect.stringContaining('lowercase slug') });
      // Same answer with nothing listening: the name is checked before the runtime is contacted.
      const offline = await runCli(['tokens', 'create', name, '--url', nowhere, '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
      expect(jsonOf(offline)).toEqual(jsonOf(r));
    }
    expect(await accounts()).toEqual([]);
  });

  it('falls back to OS_SECURITY_KEY, and SVC_ADMIN_TOKEN wins when both are set', async () => {
    expect((await run(['create', 'a1', '--json'], { OS_SECURITY_KEY: KEY })).code).toBe(0);
    const r = await run(['create', 'a2', '--json'], { SVC_ADMIN_TOKEN: 'wrong', OS_SECURITY_KEY: KEY });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: 'The runtime rejected the admin credential (Invalid authentication token).',
      hint: expect.stringContaining('SVC_ADMIN_TOKEN'),
    });
    expect((await accounts()).map((a) => a.name)).toEqual(['a1']);
  });

  it('fails without a credential when it cannot prompt, changing nothing', async () => {
    expect((await run(['create', 'x', '--json'])).code).toBe(0);
    for (const args of [['create', 'y', '--json'], ['list', '--json'], ['revoke', 'x', '--json']]) {
      const r = await run(args, {});
      expect(r.code).toBe(1);
      expect(jsonOf(r)).toEqual({
        error: 'This runtime requires an admin credential to mint tokens (auth mode: security_key).',
        hint: expect.stringContaining('SVC_ADMIN_TOKEN (or OS_SECURITY_KEY)'),
      });
    }
    expect(await accounts()).toEqual([expect.objectContaining({ name: 'x', revoked_at: null })]);
  });

  it('prints the token once in human mode, with the warning on stderr', async () => {
    const r = await run(['create', 'human', '-s', 'agents:run']);
    expect(r.code).toBe(0);
    const token = r.stdout.match(/svc_pat_[0-9A-Za-z]+/)?.[0];
    expect(token).toBeDefined();
    expect(r.stdout).toContain("Service account 'human' created (principal: sa:human).");
    expect(r.stdout).toContain('Scopes: agents:run');
    expect(r.stdout).toMatch(/Expires: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(r.stderr).toContain('This token is shown once and cannot be retrieved again. Save it now:');
    expect(`${r.stdout}${r.stderr}`.split(token ?? '-').length - 1).toBe(1);
    // The printed token is the real one: the server knows its prefix and accepts it.
    expect((await account('human'))?.token_prefix).toBe(token?.slice(0, 16));
    expect(await statusWith(rt, token ?? '', '/agents')).toBe(403);
    expect(await statusWith(rt, token ?? '', '/service-accounts')).toBe(403);
  });

  it('list --json returns every account across pages, revoked included, never a token', async () => {
    const empty = await run(['list', '--json']);
    expect(jsonOf(empty)).toEqual({ service_accounts: [] });
    const human = await run(['list']);
    expect(human.stdout).toContain('No service accounts found.');
    for (const name of ['one', 'two']) expect((await run(['create', name, '--json'])).code).toBe(0);
    expect((await run(['revoke', 'one', '--json'])).code).toBe(0);
    for (let i = 0; i < 150; i += 1) {
      expect((await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: `bulk-${i}` } })).status).toBe(201);
    }
    const r = await run(['list', '--json']);
    expect(r.code).toBe(0);
    const list = jsonOf(r).service_accounts as Record<string, unknown>[];
    expect(list).toHaveLength(152);
    expect(new Set(list.map((a) => a.id))).toEqual(new Set((await accounts()).map((a) => a.id)));
    expect(list.every((a) => Object.keys(a).join() === ACCOUNT_KEYS.join())).toBe(true);
    expect(list.find((a) => a.name === 'one')?.revoked_at).toEqual(expect.any(Number));
    expect(list.find((a) => a.name === 'two')?.revoked_at).toBeNull();
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

  it('revoke --json revokes without prompting, stamps revoked_at, and the token stops working', async () => {
    const created = jsonOf(await run(['create', 'gone', '--json']));
    expect(await statusWith(rt, created.token as string)).toBe(200);
    const before = Math.floor(Date.now() / 1000);
    const r = await run(['revoke', 'gone', '--json']);
    expect(r.code).toBe(0);
    const revoked = jsonOf(r).revoked as Record<string, unknown>;
    expect(Object.keys(revoked)).toEqual(ACCOUNT_KEYS);
    expect(revoked).toMatchObject({ id: created.id, name: 'gone' });
    expect(revoked.revoked_at as number).toBeGreaterThanOrEqual(before);
    const held = await account('gone');
    expect(held?.id).toBe(created.id);
    expect(held?.revoked_at).toBeGreaterThanOrEqual(before);
    expect(await statusWith(rt, created.token as string)).toBe(401);
    const again = await run(['revoke', 'gone', '--json']);
    expect(again.code).toBe(1);
    expect(jsonOf(again)).toEqual({ error: "No service account named 'gone' found.", hint: expect.stringContaining('svc tokens list') });
  });

  it('revoke picks the active account by name, not a revoked one of the same name', async () => {
    const old = jsonOf(await run(['create', 'rot', '--json']));
    expect((await run(['revoke', 'rot', '--json'])).code).toBe(0);
    const current = jsonOf(await run(['create', 'rot', '--json']));
    const r = await run(['revoke', 'rot', '--json']);
    expect(r.code).toBe(0);
    expect((jsonOf(r).revoked as Record<string, unknown>).id).toBe(current.id);
    expect(await statusWith(rt, current.token as string)).toBe(401);
    expect((await accounts()).map((a) => [a.id, a.revoked_at !== null]).sort()).toEqual([[old.id, true], [current.id, true]].sort());
  });

  it('revoke in human mode without a TTY skips the confirmation', async () => {
    expect((await run(['create', 'quiet', '--json'])).code).toBe(0);
    const r = await run(['revoke', 'quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Service account 'quiet' revoked. Existing tokens stop working on their next request.");
    expect((await account('quiet'))?.revoked_at).toEqual(expect.any(Number));
  });

  it('a revoked name can be created again', async () => {
    expect((await run(['create', 'reuse', '--json'])).code).toBe(0);
    expect((await run(['revoke', 'reuse', '--json'])).code).toBe(0);
    const again = await run(['create', 'reuse', '--json']);
    expect(again.code).toBe(0);
    expect(await statusWith(rt, jsonOf(again).token as string)).toBe(200);
  });

  it('a minted service-account token can itself administer accounts when it holds the scopes', async () => {
    const admin = jsonOf(await run(['create', 'ops', '-s', 'agent_os:admin', '--privileged', '--json'])).token as string;
    const r = await run(['create', 'child', '-s', 'agents:run', '--json'], { SVC_ADMIN_TOKEN: admin });
    expect(r.code).toBe(0);
    expect(jsonOf(r)).toMatchObject({ name: 'child', scopes: ['agents:run'] });
    expect((await run(['list', '--json'], { SVC_ADMIN_TOKEN: admin })).code).toBe(0);
    // A default token lacks the service_accounts scopes: the runtime forbids, and the CLI says so.
    const plain = jsonOf(await run(['create', 'plain', '--json'])).token as string;
    const denied = await run(['list', '--json'], { SVC_ADMIN_TOKEN: plain });
    expect(denied.code).toBe(1);
    expect(jsonOf(denied)).toEqual({
      error: 'The admin credential is not allowed to do this (Insufficient permissions. Required scope(s): service_accounts:read).',
      hint: expect.stringContaining('service_accounts'),
    });
  });
});

describe('svc tokens (JWT runtime)', () => {
  let rsa: SigningKey;
  let rt: TestRuntime;
  let box: Sandbox;
  let admin = '';
  const jwt = (scopes: string[], sub = 'admin-user', expiresIn?: number) => sign(rsa, { claims: { scopes, sub }, expiresIn });
  const run = (args: string[], credential: string | undefined) =>
    runCli(['tokens', ...args, '--url', rt.url], { ...box, env: { SVC_ADMIN_TOKEN: credential } });
  const accounts = () => serverAccounts(rt, admin);

  beforeAll(async () => {
    await ensureBuilt();
    rsa = await signingKey('RS256', 'k1');
    admin = await jwt(['agent_os:admin']);
    rt = await startSqliteRuntime({ authorization: true, authorization_config: { verification_keys: [rsa.publicPem] } });
  });
  afterAll(async () => {
    await rt.stop();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('creates, lists and revokes with an admin JWT; the server records who minted', async () => {
    const created = await run(['create', 'jwt-bot', '--json'], admin);
    expect(created.code).toBe(0);
    const body = jsonOf(created);
    expect(Object.keys(body)).toEqual([...ACCOUNT_KEYS, 'token']);
    expect(body).toMatchObject({ name: 'jwt-bot', scopes: DEFAULT_SCOPES, revoked_at: null });
    expect((await accounts()).find((a) => a.id === body.id)).toMatchObject({ created_by: 'admin-user', user_id: 'admin-user', scopes: DEFAULT_SCOPES });
    expect(await statusWith(rt, body.token as string)).toBe(200);

    const listed = await run(['list', '--json'], admin);
    expect(listed.code).toBe(0);
    expect((jsonOf(listed).service_accounts as Record<string, unknown>[]).map((a) => a.name)).toContain('jwt-bot');

    const revoked = await run(['revoke', 'jwt-bot', '--json'], admin);
    expect(revoked.code).toBe(0);
    expect((jsonOf(revoked).revoked as Record<string, unknown>).id).toBe(body.id);
    expect(await statusWith(rt, body.token as string)).toBe(401);
  });

  it('needs a credential, and names the mode', async () => {
    const r = await run(['list', '--json'], undefined);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: 'This runtime requires an admin credential to mint tokens (auth mode: jwt).',
      hint: expect.stringContaining('SVC_ADMIN_TOKEN (or OS_SECURITY_KEY)'),
    });
  });

  it('reports an expired JWT as a rejected credential', async () => {
    const r = await run(['list', '--json'], await jwt(['agent_os:admin'], 'admin-user', -60));
    expect(r.code).toBe(1);
    const body = jsonOf(r);
    expect(body.error).toMatch(/^The runtime rejected the admin credential \(.+\)\.$/);
    expect(body.hint).toContain('SVC_ADMIN_TOKEN');
  });

  it('a JWT can only pass on scopes it holds: the refusal names them, a subset succeeds', async () => {
    const limited = await jwt(['service_accounts:write', 'agents:run'], 'carol');
    const denied = await run(['create', 'wide', '--json'], limited);
    expect(denied.code).toBe(1);
    expect(jsonOf(denied)).toEqual({
      error: "Could not create service account 'wide': Cannot grant scope(s) you do not hold: teams:run, workflows:run, sessions:read, config:read",
      hint: 'Request only scopes your credential holds (--scopes), or use a credential that holds them.',
    });
    expect((await accounts()).map((a) => a.name)).not.toContain('wide');
    const ok = await run(['create', 'narrow', '-s', 'agents:run', '--json'], limited);
    expect(ok.code).toBe(0);
    expect((await accounts()).find((a) => a.name === 'narrow')).toMatchObject({ created_by: 'carol', scopes: ['agents:run'] });
  });

  it('a JWT without the service_accounts scopes is forbidden from listing and revoking', async () => {
    expect((await run(['create', 'kept', '--json'], admin)).code).toBe(0);
    const reader = await jwt(['agents:read']);
    for (const args of [['list', '--json'], ['revoke', 'kept', '--json']]) {
      const r = await run(args, reader);
      expect(r.code).toBe(1);
      expect(jsonOf(r)).toEqual({
        error: 'The admin credential is not allowed to do this (Insufficient permissions. Required scope(s): service_accounts:read).',
        hint: expect.stringContaining('service_accounts'),
      });
    }
    expect((await accounts()).find((a) => a.name === 'kept')?.revoked_at).toBeNull();
  });
});

describe('svc tokens (open runtime)', () => {
  let sqlite: TestSqlite;
  let rt: TestRuntime;
  let box: Sandbox;
  /** Tokens minted on this database while it briefly ran in security-key mode. */
  let adminPat = '';
  let runnerPat = '';

  beforeAll(async () => {
    await ensureBuilt();
    sqlite = tempSqlite();
    // An open runtime refuses anonymous mints, so the only way in is a service-account token:
    // mint two on the same database with the security key first, then reopen it keyless.
    const keyed = await startSqliteRuntime({ env: { OS_SECURITY_KEY: KEY } }, sqlite);
    const mint = (body: Record<string, unknown>) => api(keyed.url, 'POST', '/service-accounts', { token: KEY, body });
    adminPat = (await mint({ name: 'root', scopes: [{ scope: 'agent_os:admin' }], allow_privileged_scopes: true })).body.token;
    runnerPat = (await mint({ name: 'runner', scopes: [{ scope: 'agents:run' }] })).body.token;
    await keyed.stop();
    rt = await startSqliteRuntime({}, sqlite);
    box = sandbox();
  });
  afterAll(async () => {
    await rt.stop();
    sqlite.cleanup();
    box.cleanup();
  });

  const names = async () => (await api(rt.url, 'GET', '/service-accounts?limit=100')).body.data.map((a: any) => a.name).sort();

  it('refuses to mint when the REST API is open, before asking for anything', async () => {
    const r = await runCli(['tokens', 'create', 'x', '--url', rt.url, '--json'], box);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: 'This runtime cannot mint tokens: its REST API has no authentication configured, and the server refuses anonymous minting.',
      hint: 'Set OS_SECURITY_KEY (or configure JWT auth) on the server to enable minting.',
    });
    expect(await names()).toEqual(['root', 'runner']);
  });

  it('says only a service-account token can mint when another credential is exported', async () => {
    const r = await runCli(['tokens', 'create', 'x', '--url', rt.url, '--json'], { ...box, env: { OS_SECURITY_KEY: 'k' } });
    expect(r.code).toBe(1);
    expect(jsonOf(r).error).toContain('only a service-account token (svc_pat_...)');
    expect(await names()).toEqual(['root', 'runner']);
  });

  it('mints with an exported service-account token that holds the scopes', async () => {
    const r = await runCli(['tokens', 'create', 'via-pat', '--url', rt.url, '--json'], { ...box, env: { SVC_ADMIN_TOKEN: adminPat } });
    expect(r.code).toBe(0);
    expect(jsonOf(r)).toMatchObject({ name: 'via-pat', scopes: DEFAULT_SCOPES });
    expect(await statusWith(rt, jsonOf(r).token as string, '/agents')).toBe(403);
    expect(await names()).toContain('via-pat');
  });

  it('says what a service-account token lacks when it may not mint', async () => {
    const r = await runCli(['tokens', 'create', 'nope', '--url', rt.url, '--json'], { ...box, env: { SVC_ADMIN_TOKEN: runnerPat } });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: 'The admin credential is not allowed to do this (Insufficient permissions. Required scope(s): service_accounts:write).',
      hint: expect.stringContaining('service_accounts'),
    });
    expect(await names()).not.toContain('nope');
  });

  it('lists without a credential', async () => {
    const r = await runCli(['tokens', 'list', '--url', rt.url, '--json'], box);
    expect(r.code).toBe(0);
    const listed = jsonOf(r).service_accounts as Record<string, unknown>[];
    expect(listed.map((a) => a.name).sort()).toEqual(await names());
    expect(listed.every((a) => Object.keys(a).join() === ACCOUNT_KEYS.join())).toBe(true);
  });
});

describe('svc tokens against a remote host (through a loopback proxy)', () => {
  let rt: TestRuntime;
  let proxy: TestProxy;
  let box: Sandbox;
  let remote = '';

  beforeAll(async () => {
    await ensureBuilt();
    rt = await startSqliteRuntime({ env: { OS_SECURITY_KEY: KEY } });
    proxy = await startProxy(rt.port);
    remote = `http://${REMOTE_HOST}:${rt.port}`;
  });
  afterAll(async () => {
    await proxy.stop();
    await rt.stop();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  const env = (extra: Record<string, string> = {}) => ({ HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY, ...extra });
  const apiCallsSeen = () => proxy.seen.filter((u) => u.includes('/service-accounts'));

  it('will not trust a remote URL from .env without --yes when it cannot ask', async () => {
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
    const seen = apiCallsSeen().length;
    const r = await runCli(['tokens', 'list', '--json'], { ...box, env: env() });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: `The URL in .env points to a remote host (${remote}).`,
      hint: 'Pass --url to target it explicitly, or --yes to trust it.',
    });
    expect(apiCallsSeen()).toHaveLength(seen);
  });

  it('with --yes, still refuses to send the credential over plain HTTP without --allow-http', async () => {
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
    const seen = apiCallsSeen().length;
    let r = await runCli(['tokens', 'list', '--yes', '--json'], { ...box, env: env() });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: `Refusing to send the admin credential to ${remote} over plaintext HTTP.`,
      hint: 'Use an https:// URL, or pass --allow-http to override on a trusted private network.',
    });
    expect(apiCallsSeen()).toHaveLength(seen);
    r = await runCli(['tokens', 'list', '-y', '--allow-http', '--json'], { ...box, env: env() });
    expect(r.code).toBe(0);
    expect((jsonOf(r).service_accounts as Record<string, unknown>[]).map((a) => a.id)).toEqual((await serverAccounts(rt, KEY)).map((a) => a.id));
    expect(proxy.seen).toContain(`${remote}/service-accounts?page=1&limit=100`);
  });

  it('refuses to fetch a token over plain HTTP from an explicit remote --url', async () => {
    const seen = apiCallsSeen().length;
    const r = await runCli(['tokens', 'create', 'remote', '--url', remote, '--json'], { ...box, env: env() });
    expect(r.code).toBe(1);
    expect(jsonOf(r).error).toBe(`Refusing to send a token to ${remote} over plaintext HTTP.`);
    expect(apiCallsSeen()).toHaveLength(seen);
    expect((await serverAccounts(rt, KEY)).map((a) => a.name)).not.toContain('remote');
    const ok = await runCli(['tokens', 'create', 'remote', '--url', remote, '--allow-http', '--json'], { ...box, env: env() });
    expect(ok.code).toBe(0);
    expect(jsonOf(ok).name).toBe('remote');
    expect((await serverAccounts(rt, KEY)).find((a) => a.name === 'remote')?.id).toBe(jsonOf(ok).id);
  });
});
