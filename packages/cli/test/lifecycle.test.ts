/**
 * `svc up|down|restart` with a fake `docker` on PATH that records how it was called.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';

interface Call {
  args: string[];
  cwd: string;
}

/** Writes a `docker` that logs its argv (one JSON line per call) and exits with FAKE_DOCKER_EXIT. */
function fakeDocker(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const script = [
    `#!${process.execPath}`,
    "const fs = require('node:fs');",
    'fs.appendFileSync(process.env.FAKE_DOCKER_LOG, JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd() }) + "\\n");',
    'if (process.env.FAKE_DOCKER_STDERR) process.stderr.write(process.env.FAKE_DOCKER_STDERR);',
    'process.stdout.write("compose output\\n");',
    'process.exit(Number(process.env.FAKE_DOCKER_EXIT || 0));',
  ].join('\n');
  writeFileSync(join(bin, 'docker'), script);
  chmodSync(join(bin, 'docker'), 0o755);
  return bin;
}

describe('svc up / down / restart', () => {
  let box: Sandbox;
  let log = '';
  let env: Record<string, string> = {};
  const calls = (): Call[] =>
    existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Call) : [];
  const run = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...box, env: { ...env, ...extra } });

  beforeAll(async () => {
    await ensureBuilt();
  });
  beforeEach(() => {
    box = sandbox();
    log = join(box.root, 'docker.log');
    env = { PATH: `${fakeDocker(box.root)}${delimiter}${process.env.PATH ?? ''}`, FAKE_DOCKER_LOG: log };
  });
  afterEach(() => box.cleanup());

  it('up runs compose up -d --build in the compose file directory, output captured in JSON mode', async () => {
    const file = join(box.cwd, 'compose.yaml');
    writeFileSync(file, 'services: {}\n');
    const r = await run(['up', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const command = ['docker', 'compose', '-f', file, 'up', '-d', '--build'];
    expect(jsonOf(r)).toEqual({ command, compose_file: file, dry_run: false });
    expect(calls()).toEqual([{ args: command.slice(1), cwd: box.cwd }]);
  });

  it('up --pull / -p adds --pull always; finds infra/ files', async () => {
    mkdirSync(join(box.cwd, 'infra'));
    const file = join(box.cwd, 'infra', 'docker-compose.yml');
    writeFileSync(file, 'services: {}\n');
    for (const flag of ['--pull', '-p']) {
      const r = await run(['up', flag, '--json']);
      expect(jsonOf(r).command).toEqual(['docker', 'compose', '-f', file, 'up', '-d', '--build', '--pull', 'always']);
    }
    expect(calls().map((c) => c.cwd)).toEqual([join(box.cwd, 'infra'), join(box.cwd, 'infra')]);
  });

  it('down and down --volumes / -v', async () => {
    const file = join(box.cwd, 'docker-compose.yaml');
    writeFileSync(file, 'services: {}\n');
    expect(jsonOf(await run(['down', '--json']))).toEqual({ command: ['docker', 'compose', '-f', file, 'down'], compose_file: file, dry_run: false });
    for (const flag of ['--volumes', '-v']) {
      expect(jsonOf(await run(['down', flag, '--json'])).command).toEqual(['docker', 'compose', '-f', file, 'down', '--volumes']);
    }
    expect(calls()).toHaveLength(3);
  });

  it('restart runs down, then up, and reports both', async () => {
    const file = join(box.cwd, 'compose.yml');
    writeFileSync(file, 'services: {}\n');
    const r = await run(['restart', '-p', '--json']);
    expect(r.code).toBe(0);
    const down = ['docker', 'compose', '-f', file, 'down'];
    const up = ['docker', 'compose', '-f', file, 'up', '-d', '--build', '--pull', 'always'];
    expect(jsonOf(r)).toEqual({
      down: { command: down, compose_file: file, dry_run: false },
      up: { command: up, compose_file: file, dry_run: false },
      compose_file: file,
      dry_run: false,
    });
    expect(calls().map((c) => c.args)).toEqual([down.slice(1), up.slice(1)]);
  });

  it('--dry-run and -dr print the command and run nothing, even without docker', async () => {
    const file = join(box.cwd, 'compose.yaml');
    writeFileSync(file, 'services: {}\n');
    const noDocker = { PATH: join(box.root, 'nothing-here') };
    expect(jsonOf(await run(['up', '--dry-run', '--json'], noDocker))).toEqual({
      command: ['docker', 'compose', '-f', file, 'up', '-d', '--build'],
      compose_file: file,
      dry_run: true,
    });
    expect(jsonOf(await run(['down', '-dr', '-v', '--json'], noDocker))).toMatchObject({ command: ['docker', 'compose', '-f', file, 'down', '--volumes'], dry_run: true });
    const restart = jsonOf(await run(['restart', '-dr', '--json'], noDocker));
    expect(restart).toMatchObject({ compose_file: file, dry_run: true, down: { dry_run: true }, up: { dry_run: true } });
    const human = await run(['up', '-dr'], noDocker);
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe(`Would run: docker compose -f ${file} up -d --build`);
    expect(calls()).toEqual([]);
  });

  it('--file / -f takes a path relative to the cwd', async () => {
    mkdirSync(join(box.cwd, 'deploy'));
    const file = join(box.cwd, 'deploy', 'stack.yml');
    writeFileSync(file, 'services: {}\n');
    for (const flag of ['--file', '-f']) {
      const r = await run(['up', flag, 'deploy/stack.yml', '--json']);
      expect(jsonOf(r).compose_file).toBe(file);
    }
    const missing = await run(['down', '-f', 'nope.yml', '--json']);
    expect(missing.code).toBe(1);
    expect(jsonOf(missing)).toEqual({ error: `Compose file not found: ${join(box.cwd, 'nope.yml')}`, hint: expect.stringContaining('--file') });
  });

  it('fails with a hint when there is no compose file', async () => {
    const r = await run(['up', '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({
      error: `No compose file found in ${box.cwd} or ${join(box.cwd, 'infra')}.`,
      hint: 'Run inside a runtime project created with svc create, or pass --file.',
    });
  });

  it('says docker is required when it is not on PATH', async () => {
    writeFileSync(join(box.cwd, 'compose.yaml'), 'services: {}\n');
    const r = await run(['down', '--json'], { PATH: join(box.root, 'nothing-here') });
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: 'docker is required.', hint: 'Install Docker and make sure `docker` is on PATH.' });
  });

  it('reports a failing compose with its stderr in JSON mode, and streams output in human mode', async () => {
    writeFileSync(join(box.cwd, 'compose.yaml'), 'services: {}\n');
    const failing = { FAKE_DOCKER_EXIT: '17', FAKE_DOCKER_STDERR: 'no such service' };
    const r = await run(['up', '--json'], failing);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toEqual({ error: 'docker compose exited with code 17: no such service', hint: expect.any(String) });
    const human = await run(['up'], failing);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('compose output');
    expect(human.stderr).toContain('docker compose exited with code 17.');
    const ok = await run(['up']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`Project is up (${join(box.cwd, 'compose.yaml')}).`);
  });

  it('restart in human mode says so', async () => {
    writeFileSync(join(box.cwd, 'compose.yaml'), 'services: {}\n');
    const r = await run(['restart']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Project restarted (${join(box.cwd, 'compose.yaml')}).`);
  });
});
