/**
 * Client homes as the applications define them (CODEX_HOME, CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME
 * for the desktop app on Linux): connect writes there, status reads there, disconnect removes
 * from there, and the default locations under HOME stay untouched.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { readJson } from './support/clients.js';
import { startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

function row(body: Json, client: string): Json {
  return (body.results as Json[]).find((r) => r.client === client)!;
}

function statusRow(body: Json, client: string): Json {
  return (body.clients as Json[]).find((r) => r.client === client)!;
}

describe('client homes', () => {
  let rt: TestRuntime;
  let box: Sandbox;
  beforeAll(async () => {
    await ensureBuilt();
    rt = await startSqliteRuntime({ name: 'Homes', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
  });
  afterAll(async () => {
    await rt.stop();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('CODEX_HOME: detected there, written there, reported there and removed from there; ~/.codex is never created', async () => {
    const codexHome = join(box.root, 'codex-home');
    mkdirSync(codexHome);
    const env = { CODEX_HOME: codexHome, SVC_ADMIN_TOKEN: KEY };
    const file = join(codexHome, 'config.toml');
    // No --clients: Codex is detected through CODEX_HOME alone.
    const connected = await runCli(['connect', '--url', rt.url, '--json'], { ...box, env });
    expect(connected.code).toBe(0);
    expect(row(jsonOf(connected), 'cli-agent')).toMatchObject({ status: 'connected', location: file });
    expect(readFileSync(file, 'utf8')).toMatch(/^\[mcp_servers\.homes\]\nurl = ".*\/mcp"\nhttp_headers = \{ "Authorization" = "Bearer svc_pat_\w+" \}\n$/);
    expect(existsSync(join(box.home, '.codex'))).toBe(false);

    const status = await runCli(['status', '--url', rt.url, '--json'], { ...box, env });
    expect(statusRow(jsonOf(status), 'cli-agent')).toMatchObject({ detected: true, configured: true, location: file });
    // Without CODEX_HOME the same machine has no Codex at all.
    const plain = await runCli(['status', '--url', rt.url, '--json'], box);
    expect(statusRow(jsonOf(plain), 'cli-agent')).toMatchObject({ detected: false, configured: false, location: null });

    const removed = await runCli(['disconnect', '--url', rt.url, '--clients', 'codex', '--json'], { ...box, env });
    expect((jsonOf(removed).results as Json[])[0]).toEqual({ client: 'cli-agent', status: 'removed', error: null, removed: ['homes'], location: file });
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('CLAUDE_CONFIG_DIR: .claude.json inside it, never in HOME', async () => {
    const configDir = join(box.root, 'claude-config');
    mkdirSync(configDir);
    const env = { CLAUDE_CONFIG_DIR: configDir, SVC_ADMIN_TOKEN: KEY };
    const file = join(configDir, '.claude.json');
    const connected = await runCli(['connect', '--url', rt.url, '--json'], { ...box, env });
    expect(connected.code).toBe(0);
    // Detected from the directory alone: no binary on PATH, no file yet.
    expect(row(jsonOf(connected), 'terminal-agent')).toMatchObject({ status: 'connected', location: file });
    expect(readJson(file).mcpServers.homes).toEqual({ type: 'http', url: `${rt.url}/mcp`, headers: { Authorization: expect.stringMatching(/^Bearer svc_pat_/) } });
    expect(existsSync(join(box.home, '.claude.json'))).toBe(false);

    const status = await runCli(['status', '--url', rt.url, '--json'], { ...box, env });
    expect(statusRow(jsonOf(status), 'terminal-agent')).toMatchObject({ detected: true, configured: true, location: `${file} (user scope)` });

    const removed = await runCli(['disconnect', '--url', rt.url, '--clients', 'terminal', '--json'], { ...box, env });
    expect((jsonOf(removed).results as Json[])[0]).toMatchObject({ status: 'removed', removed: ['homes'], location: `${file} (user scope)` });
    expect(readJson(file).mcpServers).toEqual({});
  });

  it('XDG_CONFIG_HOME: the desktop app (Linux builds) keeps its config under it', async () => {
    const xdg = join(box.root, 'xdg');
    mkdirSync(join(xdg, 'Claude'), { recursive: true });
    const file = join(xdg, 'Claude', 'claude_desktop_config.json');
    writeFileSync(file, JSON.stringify({ globalShortcut: 'Ctrl+Space' }));
    const env = { XDG_CONFIG_HOME: xdg, SVC_ADMIN_TOKEN: KEY };
    const connected = await runCli(['connect', '--url', rt.url, '--json'], { ...box, env });
    expect(connected.code).toBe(0);
    expect(row(jsonOf(connected), 'desktop-app')).toMatchObject({ status: 'connected', location: file });
    expect(readJson(file).globalShortcut).toBe('Ctrl+Space');
    expect(existsSync(join(box.home, '.config'))).toBe(false);
    const status = await runCli(['status', '--url', rt.url, '--json'], { ...box, env });
    expect(statusRow(jsonOf(status), 'desktop-app')).toMatchObject({ detected: true, configured: true, location: file });
    const removed = await runCli(['disconnect', '--url', rt.url, '--clients', 'desktop', '--json'], { ...box, env });
    expect((jsonOf(removed).results as Json[])[0]).toMatchObject({ status: 'removed', location: file });
  });
});
