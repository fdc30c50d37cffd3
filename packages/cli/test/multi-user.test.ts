/**
 * Several users of one runtime, each with their own HOME (and USER), connecting the same kind of
 * client: the second user must neither fail nor cut the first one off, and --rotate must only
 * ever rotate what the user running it holds.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { installClients, paths, readJson } from './support/clients.js';
import { api, startSqliteRuntime, type TestRuntime } from './support/runtime.js';
import { runCliTty } from './support/tty.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

const hostSlug = (hostname().split('.')[0] ?? '')
  .toLowerCase()
  .replace(/[^a-z0-9]+/g, '-')
  .replace(/^-+|-+$/g, '');
const perUser = (client: string, user: string): string => `${client}-${user}-${hostSlug}`.slice(0, 63).replace(/[-_]+$/, '');

async function mcpStatus(rt: TestRuntime, token: string): Promise<number> {
  const res = await fetch(`${rt.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await res.text();
  return res.status;
}

const tokenIn = (file: string): string => (readJson(file).mcpServers.team.headers.Authorization as string).replace(/^Bearer /, '');

describe('two users, one runtime', () => {
  let rt: TestRuntime;
  let alice: Sandbox;
  let bob: Sandbox;
  let aliceFile: string;
  let bobFile: string;
  const as = (box: Sandbox, user: string, args: string[], extra: Record<string, string> = {}) =>
    runCli(['connect', '--url', rt.url, '--clients', 'terminal', ...args], { ...box, env: { USER: user, SVC_ADMIN_TOKEN: KEY, ...extra } });
  const active = async (): Promise<string[]> =>
    (await api(rt.url, 'GET', '/service-accounts?limit=100&include_revoked=false', { token: KEY })).body.data.map((a: Json) => a.name).sort();

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    rt = await startSqliteRuntime({ name: 'Team', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
    alice = sandbox();
    bob = sandbox();
    aliceFile = installClients(alice).claudeUser;
    bobFile = installClients(bob).claudeUser;
    // Alice connected first, with the plain client id as her account name.
    const first = await as(alice, 'alice', ['--json']);
    const row = (jsonOf(first).results as Json[])[0];
    if (first.code !== 0 || row?.status !== 'connected' || row.account?.name !== 'terminal-agent') throw new Error(`alice did not connect: ${first.stdout}`);
  });
  afterEach(async () => {
    await rt.stop();
    alice.cleanup();
    bob.cleanup();
  });

  it('the second user gets a per-user account, is told so, and the first user keeps working', async () => {
    const r = await as(bob, 'bob', ['--json']);
    expect(r.code).toBe(0);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row).toMatchObject({ client: 'terminal-agent', status: 'connected', error: null, account: { name: perUser('terminal-agent', 'bob') } });
    expect(row.note).toContain(`Service account 'terminal-agent' is someone else's`);
    expect(row.note).toContain(`its own account '${perUser('terminal-agent', 'bob')}'`);
    expect(await mcpStatus(rt, tokenIn(aliceFile))).toBe(200);
    expect(await mcpStatus(rt, tokenIn(bobFile))).toBe(200);
    expect(await active()).toEqual(['terminal-agent', perUser('terminal-agent', 'bob')].sort());

    // In human mode the same fact is on screen, and the revoke reminder names the right account.
    const dave = sandbox();
    const human = await as(dave, 'dave', []);
    expect(human.code).toBe(0);
    expect(human.stderr).toContain(`note: Service account 'terminal-agent' is someone else's`);
    expect(human.stdout).toContain(`(accounts: ${perUser('terminal-agent', 'dave')})`);
    // Bob again, from a HOME that does not hold his token: nothing of his is revoked by surprise.
    const fresh = sandbox();
    const elsewhere = await as(fresh, 'bob', ['--json']);
    fresh.cleanup();
    expect(elsewhere.code).toBe(1);
    expect((jsonOf(elsewhere).results as Json[])[0]!.error).toContain(`A service account named '${perUser('terminal-agent', 'bob')}' already exists. Its token is in none of your client configs and it was not minted from here`);
    expect(await mcpStatus(rt, tokenIn(bobFile))).toBe(200);
    dave.cleanup();
  });

  it("--rotate rotates only the second user's own account; the first user's token keeps working", async () => {
    expect((await as(bob, 'bob', ['--json'])).code).toBe(0);
    const bobBefore = tokenIn(bobFile);
    const r = await as(bob, 'bob', ['--json', '--rotate']);
    expect(r.code).toBe(0);
    expect((jsonOf(r).results as Json[])[0]).toMatchObject({ status: 'connected', rotated: true, account: { name: perUser('terminal-agent', 'bob') } });
    expect(await mcpStatus(rt, bobBefore)).toBe(401);
    expect(await mcpStatus(rt, tokenIn(bobFile))).toBe(200);
    expect(await mcpStatus(rt, tokenIn(aliceFile))).toBe(200);
  });

  it('--rotate --force takes the name over, saying whose token it revokes', async () => {
    const aliceToken = tokenIn(aliceFile);
    const r = await as(bob, 'bob', ['--json', '--rotate', '--force']);
    expect(r.code).toBe(0);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row).toMatchObject({ status: 'connected', account: { name: 'terminal-agent' } });
    expect(row.note).toContain("Revoked and re-minted service account 'terminal-agent' (--force), whose token was in none of your client configs.");
    expect(await mcpStatus(rt, aliceToken)).toBe(401);
    const human = await as(sandbox(), 'carol', ['--rotate', '--force']);
    expect(human.stderr).toContain("Service account 'terminal-agent' holds a token that is in none of your client configs and was not minted from here: revoking it disconnects whoever uses it");
  });

  it('[TTY] --rotate --force asks first; the default (no) leaves the other account alone', async () => {
    const r = await runCliTty(
      ['connect', '--url', rt.url, '--clients', 'terminal', '--rotate', '--force'],
      [{ waitFor: "Service account 'terminal-agent' holds a token that is in none of your client configs", keys: '\r' }],
      { ...bob, env: { USER: 'bob', SVC_ADMIN_TOKEN: KEY } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`its own account '${perUser('terminal-agent', 'bob')}'`);
    expect(await mcpStatus(rt, tokenIn(aliceFile))).toBe(200);
    expect(await mcpStatus(rt, tokenIn(bobFile))).toBe(200);
  });

  it("a shared --name held by another user's config is not rotated without --force", async () => {
    const shared = await runCli(['connect', '--url', rt.url, '--clients', 'cursor', '--name', 'team-bot', '--json'], { ...alice, env: { USER: 'alice', SVC_ADMIN_TOKEN: KEY } });
    expect(shared.code).toBe(0);
    const aliceCursor = readFileSync(paths(alice).cursorUser, 'utf8');
    const refused = await runCli(['connect', '--url', rt.url, '--clients', 'cursor', '--name', 'team-bot', '--rotate', '--json'], { ...bob, env: { USER: 'bob', SVC_ADMIN_TOKEN: KEY } });
    expect(refused.code).toBe(1);
    expect(jsonOf(refused)).toEqual({
      error: "A service account named 'team-bot' already exists.",
      hint: 'Its token is in none of your client configs and it was not minted from here, so another user or machine may be using it: pick another --name, re-run with --name team-bot --rotate --force to revoke and re-mint it anyway, or with --name team-bot --skip-existing to leave it untouched.',
    });
    expect(readFileSync(paths(alice).cursorUser, 'utf8')).toBe(aliceCursor);
    expect(await mcpStatus(rt, (readJson(paths(alice).cursorUser).mcpServers.team.headers.Authorization as string).slice(7))).toBe(200);
  });

  it("disconnect --revoke revokes the second user's own account, never the first user's", async () => {
    expect((await as(bob, 'bob', ['--json'])).code).toBe(0);
    const bobToken = tokenIn(bobFile);
    const r = await runCli(['disconnect', '--url', rt.url, '--clients', 'terminal', '--revoke', '--json'], { ...bob, env: { USER: 'bob', SVC_ADMIN_TOKEN: KEY } });
    expect(r.code).toBe(0);
    expect(jsonOf(r).revocations).toEqual([{ account: perUser('terminal-agent', 'bob'), status: 'revoked', error: null }]);
    expect(await mcpStatus(rt, bobToken)).toBe(401);
    expect(await mcpStatus(rt, tokenIn(aliceFile))).toBe(200);
    expect(await active()).toEqual(['terminal-agent']);
  });
});
