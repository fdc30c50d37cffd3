/**
 * `svc connect` when a client already has the runtime under another entry name (an older
 * --server-name, a renamed runtime, another spelling of loopback): the entry is recognised by
 * its URL and replaced in place, so the client lists the runtime's tools once; unrelated entries
 * are kept (TOML byte for byte). Built CLI as a subprocess, real runtime, temporary HOME.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { installClients, paths, readJson } from './support/clients.js';
import { activeAccountNames, mintAccount, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

describe('svc connect with the runtime already configured under another name', () => {
  let rt: TestRuntime;
  let box: Sandbox;
  let p: ReturnType<typeof paths>;
  let mcp: string;
  const run = (args: string[]) => runCli(['connect', '--url', rt.url, ...args], { ...box, env: { USER: 'ann', SVC_ADMIN_TOKEN: KEY } });
  const activeNames = (): Promise<string[]> => activeAccountNames(rt.url, KEY);
  const mint = (name: string): Promise<string> => mintAccount(rt.url, KEY, name);

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(async () => {
    rt = await startSqliteRuntime({ name: 'Customer Support', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
    mcp = `${rt.url}/mcp`;
    box = sandbox();
    p = installClients(box);
  });
  afterEach(async () => {
    await rt.stop();
    box.cleanup();
  });

  it('renames the other entry in place, keeping its working token, and leaves every other entry as it was', async () => {
    const editorToken = await mint('editor');
    const codexToken = await mint('cli-agent');
    const other = { url: 'https://other.example/mcp', headers: { Authorization: 'Bearer keep-me' } };
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { first: other, 'my-support': { url: mcp, headers: { Authorization: `Bearer ${editorToken}` } }, last: { url: 'https://last.example/mcp' } } }, null, 2));
    const toml = `# mine\nmodel = "x"\n\n[mcp_servers.support-old]\nurl = "${mcp}"\nhttp_headers = { "Authorization" = "Bearer ${codexToken}" }\n\n# next\n[mcp_servers.other]\nurl = "https://other.example/mcp"\n`;
    writeFileSync(p.codex, toml);
    const r = await run(['--json', '--clients', 'cursor,codex']);
    expect(r.code).toBe(0);
    const rows = jsonOf(r).results as Json[];
    const cursor = rows.find((row) => row.client === 'editor');
    const codex = rows.find((row) => row.client === 'cli-agent');
    expect(cursor).toMatchObject({ client: 'editor', status: 'connected', replaced_duplicates: ['my-support'] });
    expect(codex).toMatchObject({ client: 'cli-agent', status: 'connected', replaced_duplicates: ['support-old'] });
    expect(cursor!.account).toBeUndefined();
    const servers = readJson(p.cursorUser).mcpServers;
    expect(Object.keys(servers)).toEqual(['first', 'customer-support', 'last']);
    expect(servers.first).toEqual(other);
    expect(servers['customer-support']).toEqual({ url: mcp, headers: { Authorization: `Bearer ${editorToken}` } });
    expect(readFileSync(p.codex, 'utf8')).toBe(toml.replace('[mcp_servers.support-old]', '[mcp_servers.customer-support]'));
    // No new account: the working tokens were kept.
    expect(await activeNames()).toEqual(['cli-agent', 'editor']);
    expect(r.stdout).not.toContain(editorToken);
    const human = await run(['--clients', 'cursor']);
    expect(human.stdout).toMatch(/already ok +Cursor/);
  });

  it('next to a working entry, a duplicate under another name and loopback spelling is removed, in every scope', async () => {
    expect((await run(['--json', '--clients', 'terminal'])).code).toBe(0);
    const doc = readJson(p.claudeUser);
    const localhost = mcp.replace('127.0.0.1', 'localhost');
    doc.mcpServers.dup = { type: 'http', url: `${localhost}/` };
    doc.mcpServers.elsewhere = { type: 'http', url: 'https://elsewhere.example/mcp' };
    doc.projects = { [box.cwd]: { mcpServers: { 'dup-local': { type: 'http', url: mcp } } }, '/other/project': { keep: true } };
    writeFileSync(p.claudeUser, JSON.stringify(doc, null, 2));
    const r = await run(['--json', '--clients', 'terminal']);
    expect(r.code).toBe(0);
    const row = (jsonOf(r).results as Json[])[0]!;
    expect(row).toMatchObject({ status: 'already-connected', replaced_duplicates: ['dup-local', 'dup'] });
    const after = readJson(p.claudeUser);
    expect(Object.keys(after.mcpServers)).toEqual(['customer-support', 'elsewhere']);
    expect(after.projects[box.cwd].mcpServers).toEqual({});
    expect(after.projects['/other/project']).toEqual({ keep: true });
    const human = await run(['--clients', 'terminal']);
    expect(human.code).toBe(0);
    expect(human.stderr).not.toContain('replaced');
  });

  it('with --skip-existing the other entry is left alone', async () => {
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { 'my-support': { url: mcp } } }));
    const r = await run(['--json', '--clients', 'cursor', '--skip-existing']);
    expect(r.code).toBe(0);
    expect(Object.keys(readJson(p.cursorUser).mcpServers)).toEqual(['my-support', 'customer-support']);
  });

  it('a fresh account when the other entry has no working token; the human report says what was replaced', async () => {
    writeFileSync(p.cursorUser, JSON.stringify({ mcpServers: { 'my-support': { url: mcp, headers: { Authorization: 'Bearer svc_pat_not_valid_at_all' } } } }));
    const r = await run(['--clients', 'cursor']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("replaced 'my-support' (same runtime, other name), so the tools are listed once");
    expect(Object.keys(readJson(p.cursorUser).mcpServers)).toEqual(['customer-support']);
    expect(await activeNames()).toEqual(['editor']);
  });

  it("another project's local-scope entry is left alone, and rotating its account says it is cut off", async () => {
    const token = await mint('terminal-agent');
    const other = { mcpServers: { 'support-there': { type: 'http', url: mcp, headers: { Authorization: `Bearer ${token}` } } } };
    writeFileSync(p.claudeUser, JSON.stringify({ projects: { '/other/project': other } }, null, 2));
    const refused = await run(['--json', '--clients', 'terminal']);
    expect(refused.code).toBe(1);
    expect((jsonOf(refused).results as Json[])[0]!.error).toContain("A service account named 'terminal-agent' already exists. Re-run with --rotate");
    const rotated = await run(['--json', '--clients', 'terminal', '--rotate']);
    expect(rotated.code).toBe(0);
    const row = (jsonOf(rotated).results as Json[])[0]!;
    expect(row.note).toContain("Rotating service account 'terminal-agent' also cuts off ~/.claude.json (local scope of /other/project) ('support-there')");
    expect(row.replaced_duplicates).toBeUndefined();
    expect(readJson(p.claudeUser).projects['/other/project']).toEqual(other);
  });
});
