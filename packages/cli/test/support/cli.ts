/**
 * Runs the BUILT CLI as a subprocess, the way users run it, with a throwaway HOME and cwd and
 * none of the developer's RUNTIME_URL / credentials leaking in.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliDir = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_PATH = join(cliDir, 'dist', 'svc.mjs');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isStale(): boolean {
  try {
    const built = statSync(CLI_PATH).mtimeMs;
    const sources = Math.max(newestMtime(join(cliDir, 'src')), statSync(join(cliDir, 'build.mjs')).mtimeMs, statSync(join(cliDir, 'package.json')).mtimeMs);
    return sources > built;
  } catch {
    return true;
  }
}

/**
 * Builds dist/svc.mjs when any source is newer. Test files run in parallel workers, so a lock
 * directory makes sure only one of them writes the bundle while nobody runs it half-written.
 */
export async function ensureBuilt(): Promise<void> {
  const lock = join(cliDir, 'dist', '.build-lock');
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    if (isStale()) execFileSync(process.execPath, [join(cliDir, 'build.mjs')], { stdio: 'inherit' });
  } finally {
    rmdirSync(lock);
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  home: string;
  cwd: string;
  root: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  return { root, home, cwd, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface RunOptions {
  cwd: string;
  home: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

/**
 * PATH without the node_modules/.bin directories npm adds when it runs the tests: they can hold
 * the pinned MCP clients (claude, codex in interop/node_modules/.bin), which the CLI would
 * otherwise detect as installed.
 */
const USER_PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !/node_modules[\\/]\.bin[\\/]?$/.test(dir))
  .join(delimiter);

/** A clean environment: PATH and the sandbox HOME only, plus what the test adds. */
export function cliEnv(options: RunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: USER_PATH, HOME: options.home, NO_COLOR: '1', LANG: 'C.UTF-8' };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  return runProgram(process.execPath, [CLI_PATH, ...args], options);
}

/** Any program (the MCP clients the CLI configures, say) in the same clean environment, stdin closed. */
export function runProgram(command: string, args: string[], options: RunOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // A process group of its own, so a timeout also ends what the program started (Codex's npm
    // launcher runs the real binary as a child).
    const child = spawn(command, args, { cwd: options.cwd, env: cliEnv(options), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses stdout as exactly one JSON document (fails the test otherwise). */
export function jsonOf(result: CliResult): Record<string, unknown> {
  return JSON.parse(result.stdout) as Record<string, unknown>;
}
