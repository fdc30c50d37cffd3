/**
 * `svc connect` where real machines differ from a fresh one: entries written by older versions
 * under the legacy name, a write that does not take effect (rolled back), an entry holding the
 * admin key, a project-scoped Claude Code entry that still needs approval, an expired token.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { installClients, paths, readJson } from './support/clients.js';
import { api, expireAccount, NO_TOKEN_CACHE, startSqliteRuntime, tempSqlite, type TestRuntime, type TestSqlite } from './support/runtime.js';
import { runCliTty } from './support/tty.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

async function mcpStatus(rt: TestRuntime, token: string): Promise<number> {
  const res = await fetch(`${rt.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await res.text();
  return res.status;
}

describe('svc connect at the edges', () => {
  let db: TestSqlite;
  let rt: TestRuntime;
  let box: Sandbox;
  let p: ReturnType<typeof paths>;
  let mcp: string;
  const env = { SVC_ADMIN_TOKEN: KEY };
  const run = (args: string[], extra: Record<string, string> = {}) => runCli(['connect', '--url', rt.url, ...args], { ...box, env: { ...env, ...extra } });
  const active = async (): Promise<Json[]> => (await api(rt.url, 'GET', '/service-accounts?limit=100&include_revoked=false', { token: KEY })).body.data;
  const mint = async (name: string): Promise<string> => {
    const created = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name } });
    expect(created.status).toBe(201);
    return created.body.token as string;
  };

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    db = tempSqlite();
    rt = await startSqliteRuntime({ name: 'Customer Support', mcp_server: true, env: { OS_SECURITY_KEY: KEY, ...NO_TOKEN_CACHE } }, db);
    mcp = `${rt.url}/mcp`;
    box = sandbox();
    p = installClients(box);
  });
  afterEach(async () => {
    await rt.stop();
    db.cleanup();
    box.cleanup();
  });

  describe("legacy entries (the fixed name 'svc' older versions wrote)", () => {
    it('are renamed in place, keeping their still-valid token: no mint, no 409', async () => {
      const editorToken = await mint('editor');
      const codexToken = await mint('cli-agent');
      writeFileSync(
        p.cursorUser,
        JSON.stringify({ mcpServers: { first: { url: 'https://first.example/mcp' }, svc: { url: mcp, headers: { Authorization: `Bearer ${editorToken}` } }, last: { url: 'https://last.example/mcp' } } }, null, 2),
      );
      writeFileSync(p.codex, `# codex\n[mcp_servers.svc]\nurl = "${mcp}"\nhttp_headers = { "Authorization" = "Bearer ${codexToken}" }\n\n# next\n[mcp_servers.other]\nurl = "https://other.example/mcp"\n`);
      const r = await run(['--json', '--clients', 'cursor,codex']);
      expect(r.code).toBe(0);
      const rows = jsonOf(r).results as Json[];
      for (const row of rows) {
        expect(row).toMatchObject({ status: 'connected', replaced_legacy: 'svc' });
        expect(row.account).toBeUndefined();
        expect(Object.keys(row)).toEqual(['client', 'status', 'error', 'location', 'verify', 'replaced_legacy']);
      }
      // Same place, new name, same token.
      const cursor = readJson(p.cursorUser).mcpServers;
      expect(Object.keys(cursor)).toEqual(['first', 'customer-support', 'last']);
      expect(cursor['customer-support']).toEqual({ url: mcp, headers: { Authorization: `Bearer ${editorToken}` } });
      expect(readFileSync(p.codex, 'utf8')).toBe(
        `# codex\n[mcp_servers.customer-support]\nurl = "${mcp}"\nhttp_headers = { "Authorization" = "Bearer ${codexToken}" }\n\n# next\n[mcp_servers.other]\nurl = "https://other.example/mcp"\n`,
      );
      expect((await active()).map((a) => a.name).sort()).toEqual(['cli-agent', 'editor']);
      const human = await run(['--clients', 'cursor']);
      expect(human.stdout).toMatch(/already ok +Cursor/);
    });

    it('are renamed with a fresh account when their token no longer works, and other runtimes\' legacy entries stay', async () => {
      const old = await mint('editor');
      const account = (await active()).find((a) => a.name === 'editor')!;
      expect((await api(rt.url, 'DELETE', `/service-accounts/${account.id}`, { token: KEY })).status).toBe(204);
      writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { svc: { url: mcp, headers: { Authorization: `Bearer ${old}` } } } }));
      writeFileSync(p.claudeUser, JSON.stringify({ mcpServers: { svc: { type: 'http', url: 'https://elsewhere.example/mcp' } } }));
      const r = await run(['--json', '--clients', 'cursor,terminal']);
      expect(r.code).toBe(0);
      const [editor, terminal] = jsonOf(r).results as Json[];
      expect(editor).toMatchObject({ status: 'connected', replaced_legacy: 'svc', account: { name: 'editor' } });
      expect(Object.keys(readJson(p.cursorUser).mcpServers)).toEqual(['customer-support']);
      expect(terminal!.replaced_legacy).toBeUndefined();
      expect(readJson(p.claudeUser).mcpServers.svc).toEqual({ type: 'http', url: 'https://elsewhere.example/mcp' });
    });

    it('next to a working entry: the legacy one is removed and reported', async () => {
      expect((await run(['--json', '--clients', 'cursor'])).code).toBe(0);
      const doc = readJson(p.cursorUser);
      doc.mcpServers.svc = { url: mcp };
      writeFileSync(p.cursorUser, JSON.stringify(doc));
      const r = await run(['--json', '--clients', 'cursor']);
      expect((jsonOf(r).results as Json[])[0]).toMatchObject({ status: 'already-connected', replaced_legacy: 'svc' });
      expect(Object.keys(readJson(p.cursorUser).mcpServers)).toEqual(['customer-support']);
    });
  });

  it('a write that another entry shadows is rolled back: the file byte for byte, the new account revoked', async () => {
    // A local-scope entry of the same name wins over the user scope connect writes to.
    const original = `${JSON.stringify({ numStartups: 2, projects: { [box.cwd]: { mcpServers: { 'customer-support': { type: 'http', url: 'https://stale.example/mcp' } } } } }, null, 4)}\n`;
    writeFileSync(p.claudeUser, original, { mode: 0o644 });
    const r = await run(['--json', '--clients', 'terminal']);
    expect(r.code).toBe(1);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row.status).toBe('failed');
    expect(row.error).toContain("The config write did not take effect for 'customer-support'");
    expect(row.error).toContain(`Rolled back: restored ${p.claudeUser}; revoked the new service account 'terminal-agent'.`);
    expect(row.account).toMatchObject({ name: 'terminal-agent', revoked_at: expect.any(Number) });
    expect(readFileSync(p.claudeUser, 'utf8')).toBe(original);
    expect((await active()).map((a) => a.name)).toEqual([]);
  });

  it('[TTY] Ctrl-D at a later prompt undoes the clients already connected in that run', async () => {
    // Codex connects first; then Cursor's account needs an answer (it is the user's, and rotating
    // it would cut off an entry of another client), and the user presses Ctrl-D.
    const editorToken = await mint('editor');
    const claudeBefore = JSON.stringify({ mcpServers: { older: { type: 'http', url: mcp, headers: { Authorization: `Bearer ${editorToken}` } } } });
    writeFileSync(p.claudeUser, claudeBefore);
    const r = await runCliTty(['connect', '--url', rt.url, '--clients', 'codex,cursor'], [{ waitFor: "◆  Service account 'editor' already exists.", keys: '\u0004' }], {
      ...box,
      env,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Aborted.');
    expect(existsSync(p.codex)).toBe(false);
    expect(readFileSync(p.claudeUser, 'utf8')).toBe(claudeBefore);
    expect(existsSync(p.cursorUser)).toBe(false);
    expect((await active()).map((a) => a.name)).toEqual(['editor']);
    expect(await mcpStatus(rt, editorToken)).toBe(200);
  });

  it('an entry holding the admin key works, but says so and how to replace it; --rotate replaces it', async () => {
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { 'customer-support': { url: mcp, headers: { Authorization: `Bearer ${KEY}` } } } }));
    const r = await run(['--json', '--clients', 'cursor'], { SVC_ADMIN_TOKEN: '', OS_SECURITY_KEY: KEY });
    expect(r.code).toBe(0);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row.status).toBe('already-connected');
    expect(row.note).toContain("This entry holds the runtime's admin key");
    expect(row.note).toContain(`svc connect --url ${rt.url} --clients editor --rotate`);
    const human = await run(['--clients', 'cursor']);
    expect(human.stderr).toContain("note: This entry holds the runtime's admin key");
    const fixed = await run(['--json', '--clients', 'editor', '--rotate']);
    expect((jsonOf(fixed).results as Json[])[0]).toMatchObject({ status: 'connected', rotated: true, account: { name: 'editor' } });
    expect(readJson(p.cursorUser).mcpServers['customer-support'].headers.Authorization).toMatch(/^Bearer svc_pat_/);
  });

  it('--project for Claude Code says the client will ask to approve the server, until it is approved', async () => {
    const r = await run(['--json', '--project', '--clients', 'terminal']);
    expect(r.code).toBe(0);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row).toMatchObject({ status: 'connected', location: p.claudeProject });
    expect(row.note).toContain("Claude Code asks before it uses a server from a project's .mcp.json");
    expect(row.note).toContain(`approve 'customer-support'`);
    expect(row.note).toContain('Pending approval');
    // Listed as approved, but the folder is not trusted yet: Claude Code still asks.
    mkdirSync(join(box.cwd, '.claude'));
    writeFileSync(join(box.cwd, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: ['customer-support'] }));
    const untrusted = await run(['--json', '--project', '--clients', 'terminal']);
    expect((jsonOf(untrusted).results as Json[])[0]!.note).toContain('Pending approval');
    // Trusted and approved, the way Claude Code records both: no more note.
    const global = readJson(p.claudeUser);
    writeFileSync(p.claudeUser, JSON.stringify({ ...global, projects: { [box.cwd]: { hasTrustDialogAccepted: true } } }));
    const again = await run(['--json', '--project', '--clients', 'terminal']);
    const approved = (jsonOf(again).results as Json[])[0]!;
    expect(approved.status).toBe('already-connected');
    expect(approved.note).toBeUndefined();
    // Declined in Claude Code: the note says how to undo that.
    writeFileSync(join(box.cwd, '.claude', 'settings.local.json'), JSON.stringify({ disabledMcpjsonServers: ['customer-support'] }));
    const declined = await run(['--json', '--project', '--clients', 'terminal']);
    expect((jsonOf(declined).results as Json[])[0]!.note).toContain('claude mcp reset-project-choices');
  });

  it('an expired token of yours is re-minted without asking: nobody can be using it', async () => {
    expect((await run(['--json', '--clients', 'cursor'])).code).toBe(0);
    const old = (readJson(p.cursorUser).mcpServers['customer-support'].headers.Authorization as string).slice(7);
    await expireAccount(db.path, 'editor');
    expect(await mcpStatus(rt, old)).toBe(401);
    const r = await run(['--json', '--clients', 'cursor']);
    expect(r.code).toBe(0);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row).toMatchObject({ status: 'connected', rotated: true, account: { name: 'editor' } });
    expect(row.note).toContain("no longer accepted the token of service account 'editor'");
    expect(await mcpStatus(rt, (readJson(p.cursorUser).mcpServers['customer-support'].headers.Authorization as string).slice(7))).toBe(200);
  });
});
