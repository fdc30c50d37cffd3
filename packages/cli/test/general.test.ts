/**
 * Global conventions: catalog, --version, --help, usage errors (exit 2, stderr only, no JSON).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, sandbox, type Sandbox } from './support/cli.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('svc: catalog, version, help and usage errors', () => {
  let box: Sandbox;
  beforeAll(async () => {
    await ensureBuilt();
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it('bare svc prints the command catalog and exits 0', async () => {
    const r = await runCli([], box);
    expect(r.code).toBe(0);
    for (const text of ['Get started', 'Operate', 'Tokens', 'svc create', 'svc status', 'svc tokens', 'svc up / down / restart', `v${version}`]) {
      expect(r.stdout).toContain(text);
    }
    expect(r.stdout).not.toContain('svc create <name>');
    expect(r.stderr).toBe('');
  });

  it('--version prints the version, also ahead of a subcommand', async () => {
    for (const args of [['--version'], ['-V'], ['--version', 'status']]) {
      const r = await runCli(args, box);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(`svcctl ${version}`);
    }
  });

  it('--help lists every command, and every command has --help', async () => {
    const r = await runCli(['--help'], box);
    expect(r.code).toBe(0);
    for (const c of ['create', 'status', 'tokens', 'up', 'down', 'restart']) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    for (const args of [['status'], ['tokens'], ['tokens', 'create'], ['tokens', 'list'], ['tokens', 'revoke'], ['create'], ['up'], ['down'], ['restart']]) {
      const h = await runCli([...args, '--help'], box);
      expect(h.code, args.join(' ')).toBe(0);
      expect(h.stdout).toContain(`Usage: svc ${args.join(' ')}`);
      expect(h.stdout).toContain('--json');
    }
  });

  it.each([
    [['frobnicate', '--json'], "unknown command 'frobnicate'"],
    [['status', '--bogus', '--json'], "unknown option '--bogus'"],
    [['tokens', '--json'], 'missing command'],
    [['tokens', 'frob', '--json'], "unknown command 'frob'"],
    [['tokens', 'create', '--json'], "missing required argument 'name'"],
    [['tokens', 'revoke', '--json'], "missing required argument 'name'"],
    [['status', '--url', '--json'], "option '--url <url>' argument missing"],
    [['status', '--url', 'not a url', '--json'], 'Invalid runtime URL'],
    [['status', '--url', 'ftp://x', '--json'], 'Invalid runtime URL'],
    [['status', '--server-name', 'a.b', '--json'], 'Invalid --server-name: a.b'],
    [['tokens', 'create', 'ci', '--expires', '0', '--json'], 'Invalid --expires value: 0'],
    [['create', 'app', '--template', 'nope', '--json'], 'Unknown template: nope'],
    [['up', '--volumes', '--json'], "unknown option '--volumes'"],
    [['down', '--pull', '--json'], "unknown option '--pull'"],
  ])('usage error %j exits 2 with nothing on stdout', async (args, message) => {
    const r = await runCli(args, box);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toMatch(/Try 'svc[^']*--help' for help\./);
  });
});
