/**
 * `svc` account handling as real clients met it (issue 25): revoke finds the accounts a connect
 * actually used (a shared --name included), a failed --name connect revokes what it minted, the
 * same user reconnecting from the same machine is never locked out (ownership recorded locally,
 * in a 0600 file, never guessed from configs), and disconnect --revoke without a credential says
 * what it needs one for. Built CLI as a subprocess, real runtime, temporary HOMEs.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type CliResult, type Sandbox } from './support/cli.js';
import { installClients, modeOf, paths, perUserName, readJson } from './support/clients.js';
import { activeAccountNames, api, mcpStatus as statusAt, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

const bearer = (entry: Json): string => (entry.headers.Authorization as string).replace(/^Bearer /, '');
const codexToken = (file: string): string => /"Bearer ([^"]+)"/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
const recordPath = (box: Sandbox): string => join(box.home, '.config', 'svc', 'minted-accounts.json');

/** Neither stream of a run ever shows a token or the admin key. */
function expectNoSecrets(r: CliResult, tokens: readonly string[]): void {
  for (const secret of [KEY, ...tokens]) {
    expect(r.stdout).not.toContain(secret);
    expect(r.stderr).not.toContain(secret);
  }
}

describe('svc account handling', () => {
  let rt: TestRuntime;
  let box: Sandbox;
  let p: ReturnType<typeof paths>;
  const env = { USER: 'ann', SVC_ADMIN_TOKEN: KEY };
  const svc = (args: string[], extra: Record<string, string | undefined> = {}) => runCli([...args, '--url', rt.url], { ...box, env: { ...env, ...extra } });
  const active = async (): Promise<Json[]> => (await api(rt.url, 'GET', '/service-accounts?limit=100&include_revoked=false', { token: KEY })).body.data;
  const activeNames = (): Promise<string[]> => activeAccountNames(rt.url, KEY);
  const mcpStatus = (_rt: TestRuntime, token: string): Promise<number> => statusAt(rt.url, token);

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

  it('disconnect --revoke finds the shared --name account the connect used, and keeps it while another client still uses it', async () => {
    const connected = await svc(['connect', '--clients', 'cursor,codex', '--name', 'team-bot', '--json']);
    expect(connected.code).toBe(0);
    const token = bearer(readJson(p.cursorUser).mcpServers['customer-support']);
    expect(codexToken(p.codex)).toBe(token);
    expectNoSecrets(connected, [token]);

    // Cursor alone: its entry goes, but Codex still holds the shared token, so it stays.
    const first = await svc(['disconnect', '--clients', 'cursor', '--revoke', '--json']);
    expect(first.code).toBe(3);
    expect(jsonOf(first).revocations).toEqual([
      {
        account: 'team-bot',
        status: 'failed',
        error: `Not revoked: ~/.codex/config.toml ('customer-support') still uses its token. Disconnect that client too, or revoke it anyway with: svc tokens revoke team-bot`,
      },
    ]);
    expect(await mcpStatus(rt, token)).toBe(200);

    // Then Codex: no --name needed, the removed entry's token names the account.
    const second = await svc(['disconnect', '--clients', 'codex', '--revoke', '--json']);
    expect(second.code).toBe(0);
    expect(jsonOf(second).revocations).toEqual([{ account: 'team-bot', status: 'revoked', error: null }]);
    expect(await mcpStatus(rt, token)).toBe(401);
    expect(await activeNames()).toEqual([]);
    expect(readJson(recordPath(box)).accounts).toEqual([]);
    expectNoSecrets(second, [token]);
  });

  it('disconnect --revoke after a plain disconnect still finds the account minted here (the local record)', async () => {
    expect((await svc(['connect', '--clients', 'terminal', '--name', 'ann-bot', '--json'])).code).toBe(0);
    const token = bearer(readJson(p.claudeUser).mcpServers['customer-support']);
    expect((await svc(['disconnect', '--clients', 'terminal', '--json'])).code).toBe(0);
    expect(await mcpStatus(rt, token)).toBe(200);
    const r = await svc(['disconnect', '--clients', 'terminal', '--revoke', '--json']);
    expect(r.code).toBe(0);
    expect(jsonOf(r).revocations).toEqual([{ account: 'ann-bot', status: 'revoked', error: null }]);
    expect(await mcpStatus(rt, token)).toBe(401);
  });

  it('a failed connect --name revokes the shared account it minted, and leaves the config byte for byte', async () => {
    // A local-scope entry of the same name shadows the user-scope entry connect writes.
    const original = `${JSON.stringify({ numStartups: 2, projects: { [box.cwd]: { mcpServers: { 'customer-support': { type: 'http', url: 'https://stale.example/mcp' } } } } }, null, 4)}\n`;
    writeFileSync(p.claudeUser, original);
    const r = await svc(['connect', '--clients', 'terminal', '--name', 'team-bot', '--json']);
    expect(r.code).toBe(1);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row).toMatchObject({ status: 'failed', account: { name: 'team-bot', revoked_at: expect.any(Number) } });
    expect(row.error).toContain("The config write did not take effect for 'customer-support'");
    expect(row.error).toContain("Revoked the new service account 'team-bot', which no client uses.");
    expect(readFileSync(p.claudeUser, 'utf8')).toBe(original);
    expect(await activeNames()).toEqual([]);
    expect(readJson(recordPath(box)).accounts).toEqual([]);
    // Human mode says the same on the row.
    const human = await svc(['connect', '--clients', 'terminal', '--name', 'team-bot']);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain("Revoked the new service account 'team-bot', which no client uses.");
    expect(await activeNames()).toEqual([]);
  });

  it('the same user on the same machine reconnects after disconnects: the account is replaced, never locked out', async () => {
    const tokens: string[] = [];
    const notes: unknown[] = [];
    for (let round = 1; round <= 3; round += 1) {
      const r = await svc(['connect', '--clients', 'terminal', '--json']);
      expect(r.code, r.stdout).toBe(0);
      const row = (jsonOf(r).results as Json[])[0]!;
      expect(row).toMatchObject({ status: 'connected', account: { name: 'terminal-agent' } });
      notes.push(row.note);
      tokens.push(bearer(readJson(p.claudeUser).mcpServers['customer-support']));
      expectNoSecrets(r, tokens);
      expect((await svc(['disconnect', '--clients', 'terminal', '--json'])).code).toBe(0);
    }
    const replaced = "Service account 'terminal-agent' was minted from here earlier and its token is in none of your client configs any more, so it was revoked and minted again.";
    expect(notes).toEqual([undefined, replaced, replaced]);
    // One account, the last token: the earlier ones were revoked when replaced.
    expect(await activeNames()).toEqual(['terminal-agent']);
    expect(await mcpStatus(rt, tokens[0]!)).toBe(401);
    expect(await mcpStatus(rt, tokens[1]!)).toBe(401);
    expect(await mcpStatus(rt, tokens[2]!)).toBe(200);
    // The record: 0600 in a 0700 directory, ids and display prefixes, never a token.
    const file = recordPath(box);
    expect(modeOf(file)).toBe(0o600);
    expect(statSync(join(box.home, '.config', 'svc')).mode & 0o777).toBe(0o700);
    const text = readFileSync(file, 'utf8');
    for (const token of tokens) expect(text).not.toContain(token);
    const account = (await active())[0]!;
    expect(JSON.parse(text)).toEqual({
      version: 1,
      accounts: [{ runtime: expect.stringContaining('loopback'), url: rt.url, id: account.id, name: 'terminal-agent', token_prefix: account.token_prefix, clients: ['terminal-agent'], minted_at: expect.any(Number) }],
    });

    // The same with a shared --name account, and SVC_CONFIG_DIR moves the record.
    const dir = join(box.root, 'svc-config');
    for (let round = 1; round <= 3; round += 1) {
      const r = await svc(['connect', '--clients', 'cursor', '--name', 'ann-shared', '--json'], { SVC_CONFIG_DIR: dir });
      expect(r.code, r.stdout).toBe(0);
      expect((await svc(['disconnect', '--clients', 'cursor', '--json'], { SVC_CONFIG_DIR: dir })).code).toBe(0);
    }
    expect(modeOf(join(dir, 'minted-accounts.json'))).toBe(0o600);
    expect(await activeNames()).toEqual(['ann-shared', 'terminal-agent']);
  });

  it("another user's account is still left alone, and the hints name --name", async () => {
    const other = sandbox();
    try {
      installClients(other);
      const theirs = await runCli(['connect', '--url', rt.url, '--clients', 'cursor', '--name', 'team-bot', '--json'], { ...other, env: { USER: 'bob', SVC_ADMIN_TOKEN: KEY } });
      expect(theirs.code).toBe(0);
      const theirToken = bearer(readJson(paths(other).cursorUser).mcpServers['customer-support']);
      const shared = await svc(['connect', '--clients', 'cursor', '--name', 'team-bot', '--rotate', '--json']);
      expect(shared.code).toBe(1);
      expect(jsonOf(shared).hint).toBe(
        'Its token is in none of your client configs and it was not minted from here, so another user or machine may be using it: pick another --name, re-run with --name team-bot --rotate --force to revoke and re-mint it anyway, or with --name team-bot --skip-existing to leave it untouched.',
      );
      expect(await mcpStatus(rt, theirToken)).toBe(200);
      // A per-client name taken twice over (the id and the per-user name, both someone else's).
      for (const name of ['editor', perUserName('editor', 'ann')]) expect((await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name } })).status).toBe(201);
      const locked = await svc(['connect', '--clients', 'cursor', '--json']);
      expect(locked.code).toBe(1);
      const error = (jsonOf(locked).results as Json[])[0]!.error as string;
      expect(error).toContain('connect with an account name of your own (--name <account>), re-run with --rotate --force');
    } finally {
      other.cleanup();
    }
  });

  it('disconnect --revoke without a credential says it needs one to revoke, exits 1, and changes nothing', async () => {
    expect((await svc(['connect', '--clients', 'cursor', '--json'])).code).toBe(0);
    const before = readFileSync(p.cursorUser, 'utf8');
    const r = await svc(['disconnect', '--revoke', '--json'], { SVC_ADMIN_TOKEN: undefined });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: 'This runtime requires an admin credential to revoke service accounts (auth mode: security_key).',
      hint: expect.stringContaining('SVC_ADMIN_TOKEN (or OS_SECURITY_KEY)'),
    });
    expect(readFileSync(p.cursorUser, 'utf8')).toBe(before);
    const human = await svc(['disconnect', '--revoke'], { SVC_ADMIN_TOKEN: undefined });
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('Error: This runtime requires an admin credential to revoke service accounts');
    expect(human.stderr).not.toContain('mint');
  });
});
