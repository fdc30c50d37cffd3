/**
 * Interactive runs on a real pseudo-terminal: the prompts that only a TTY ever sees.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, sandbox, type Sandbox } from './support/cli.js';
import { installClients } from './support/clients.js';
import { REMOTE_HOST, startProxy, type TestProxy } from './support/proxy.js';
import { api, startSqliteRuntime, type TestRuntime } from './support/runtime.js';
import { starterRepos, TEMPLATES_DIR, type StarterRepos } from './support/starter-repos.js';
import { runCliTty } from './support/tty.js';

const KEY = 'test-admin-key';

async function accountsOf(base: string): Promise<{ name: string; revoked_at: number | null }[]> {
  return (await api(base, 'GET', '/service-accounts?limit=100', { token: KEY })).body.data;
}

describe('interactive runs (TTY)', () => {
  let repos: StarterRepos;
  let server: TestRuntime;
  let proxy: TestProxy;
  let box: Sandbox;

  beforeAll(async () => {
    await ensureBuilt();
    repos = await starterRepos();
    server = await startSqliteRuntime({ env: { OS_SECURITY_KEY: KEY } });
    proxy = await startProxy(server.port);
  });
  afterAll(async () => {
    repos?.cleanup();
    await proxy.stop();
    await server.stop();
  });
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('create without a name asks for the template and the name', async () => {
    const r = await runCliTty(
      ['create'],
      [
        // Each step waits for the prompt's active marker (◆), so keys never arrive early.
        { waitFor: '◆  Choose a template', keys: '\u001b[B\u001b[B\u001b[B\u001b[B\u001b[B' },
        { waitFor: '● runtime-helm', keys: '\r' },
        { waitFor: '◆  Project name', keys: 'bad.name\r' },
        { waitFor: '◆  Project name', occurrence: 2, keys: 'tty-app\r' },
      ],
      { ...box, env: { SVC_TEMPLATES_BASE_URL: repos.baseUrl } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Invalid project name: bad.name');
    expect(r.stdout).toContain('Created tty-app from runtime-helm.');
    const chart = join('chart', 'Chart.yaml');
    expect(readFileSync(join(box.cwd, 'tty-app', chart), 'utf8')).toBe(readFileSync(join(TEMPLATES_DIR, 'runtime-helm', chart), 'utf8'));
  });

  it('create with an explicit name never prompts, even on a TTY', async () => {
    const r = await runCliTty(['create', 'direct'], [], { ...box, env: { SVC_TEMPLATES_BASE_URL: repos.baseUrl } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Choose a template');
    expect(readFileSync(join(box.cwd, 'direct', '.env'), 'utf8')).toBe(readFileSync(join(TEMPLATES_DIR, 'runtime-docker', 'example.env'), 'utf8'));
  });

  it('revoke asks first, and declining (the default) changes nothing and exits 0', async () => {
    const created = await runCliTty(['tokens', 'create', 'keepme', '--url', server.url, '--json'], [], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(created.code).toBe(0);
    const r = await runCliTty(['tokens', 'revoke', 'keepme', '--url', server.url], [{ waitFor: "◆  Revoke service account 'keepme'?", keys: '\r' }], {
      ...box,
      env: { SVC_ADMIN_TOKEN: KEY },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Aborted; no changes made.');
    const held = async () => (await api(server.url, 'GET', '/service-accounts?limit=100', { token: KEY })).body.data.find((a: any) => a.name === 'keepme');
    expect((await held()).revoked_at).toBeNull();
    const yes = await runCliTty(['tokens', 'revoke', 'keepme', '--url', server.url, '--yes'], [], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain("Service account 'keepme' revoked.");
    expect((await held()).revoked_at).toEqual(expect.any(Number));
  });

  it('asks for the admin credential with hidden input when none is exported', async () => {
    // Listing on a security-key runtime only succeeds when the typed key was sent.
    expect((await api(server.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'typed-key' } })).status).toBe(201);
    const r = await runCliTty(['tokens', 'list', '--url', server.url], [{ waitFor: '◆  Admin credential for this runtime', keys: `${KEY}\r` }], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('SVC_ADMIN_TOKEN (or OS_SECURITY_KEY)');
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).toMatch(/typed-key\s+svc_pat_/);
  });

  it('asks before trusting a remote URL from .env (default yes)', async () => {
    const remote = `http://${REMOTE_HOST}:${server.port}`;
    writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
    const r = await runCliTty(['tokens', 'list', '--allow-http'], [{ waitFor: `◆  Trust RUNTIME_URL=${remote} (from .env)?`, keys: '\r' }], {
      ...box,
      env: { HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Using runtime at ${remote} (from RUNTIME_URL in .env)`);
  });

  describe('prompts at the edges: end of input, typed-ahead Enter, \\n, a terminal of 0 columns', () => {

    it('Ctrl-D at a confirmation aborts with "Aborted." and exit 1, and revokes nothing', async () => {
      expect((await api(server.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'eof-confirm' } })).status).toBe(201);
      const r = await runCliTty(['tokens', 'revoke', 'eof-confirm', '--url', server.url], [{ waitFor: "◆  Revoke service account 'eof-confirm'?", keys: '\u0004' }], {
        ...box,
        env: { SVC_ADMIN_TOKEN: KEY },
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Aborted.');
      expect(r.stdout).not.toContain('Aborted; no changes made.');
      expect((await accountsOf(server.url)).find((a) => a.name === 'eof-confirm')?.revoked_at).toBeNull();
    });

    it('Ctrl-D at the hidden credential prompt of connect aborts before any account or config exists', async () => {
      const mcpRuntime = await startSqliteRuntime({ name: 'Eof', mcp_server: true, env: { OS_SECURITY_KEY: KEY } });
      try {
        const p = installClients(box);
        const r = await runCliTty(['connect', '--url', mcpRuntime.url], [{ waitFor: '◆  Admin credential for this runtime', keys: '\u0004' }], box);
        expect(r.code).toBe(1);
        expect(r.stdout).toContain('Aborted.');
        expect(readFileSync(p.claudeUser, 'utf8')).toBe('{}');
        expect(existsSync(p.codex)).toBe(false);
        expect(existsSync(p.cursorUser)).toBe(false);
        expect((await api(mcpRuntime.url, 'GET', '/service-accounts?limit=100', { token: KEY })).body.data).toEqual([]);
      } finally {
        await mcpRuntime.stop();
      }
    });

    it('Ctrl-D at the template menu of create aborts without cloning anything', async () => {
      const r = await runCliTty(['create'], [{ waitFor: '◆  Choose a template', keys: '\u0004' }], { ...box, env: { SVC_TEMPLATES_BASE_URL: repos.baseUrl } });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Aborted.');
      expect(r.stdout).not.toContain('Project name');
      expect(existsSync(join(box.cwd, 'runtime'))).toBe(false);
    });

    it('accepts an Enter typed before the prompt is drawn (here: trust the .env URL, the default)', async () => {
      const remote = `http://${REMOTE_HOST}:${server.port}`;
      writeFileSync(join(box.cwd, '.env'), `RUNTIME_URL=${remote}\n`);
      // No step waits for the prompt: the Enter is already in the terminal's buffer.
      const r = await runCliTty(['tokens', 'list', '--allow-http'], [], { ...box, typeahead: '\r', env: { HTTP_PROXY: proxy.url, SVC_ADMIN_TOKEN: KEY } });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Trust RUNTIME_URL=${remote} (from .env)?`);
      expect(r.stdout).toContain(`Using runtime at ${remote} (from RUNTIME_URL in .env)`);
    });

    it('accepts \\n as Enter (what a script sends)', async () => {
      expect((await api(server.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'newline-key' } })).status).toBe(201);
      const r = await runCliTty(['tokens', 'list', '--url', server.url], [{ waitFor: '◆  Admin credential for this runtime', keys: `${KEY}\n` }], box);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/newline-key\s+svc_pat_/);
    });

    it('a terminal that reports 0 columns gets whole lines, not one character per line', async () => {
      expect((await api(server.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'narrow' } })).status).toBe(201);
      const question = "Revoke service account 'narrow'? Its tokens stop working on their next request.";
      const r = await runCliTty(['tokens', 'revoke', 'narrow', '--url', server.url], [{ waitFor: question, keys: 'n' }], {
        ...box,
        cols: 0,
        env: { SVC_ADMIN_TOKEN: KEY },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`◆  ${question}`);
      expect(r.stdout).toContain('Aborted; no changes made.');
      expect((await accountsOf(server.url)).find((a) => a.name === 'narrow')?.revoked_at).toBeNull();
    });
  });
});
