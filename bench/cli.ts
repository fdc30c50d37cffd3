/**
 * Cold start of the CLI against `node -e 0` (Node's own floor), measured in the same run.
 *   npm run bench           (all benchmarks)
 *   npx tsx bench/cli.ts    (this one; BENCH_CLI_RUNS=60 for more runs)
 *
 * Budgets (median over the baseline's median): `svc --version` and `svc --help` 15 ms, every
 * other command 40 ms. Each command is run the way users run it (bin/svc.mjs, which loads the
 * bundle's small entry and then only that command's chunks).
 *
 * The cases run interleaved, round after round, so a burst of load on a shared machine hits
 * every case alike instead of skewing one; medians then discard most of what is left.
 * `svc status --json` runs in an empty directory with no RUNTIME_URL, so it does the real
 * no-runtime work: four loopback probes that are refused, then the error document.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 30);
const cliDir = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const bin = join(cliDir, 'bin', 'svc.mjs');

interface Case {
  label: string;
  args: string[];
  /** Allowed median over the baseline, in ms; undefined for the baseline itself. */
  budget: number | undefined;
  samples: number[];
}

function svc(label: string, args: string[], budget: number): Case {
  return { label, args: [bin, ...args], budget, samples: [] };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function once(args: string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  spawnSync(process.execPath, args, { cwd, env, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function defaultPortAnswers(): Promise<boolean> {
  for (const port of [7777, 7778, 7779, 8000]) {
    try {
      await fetch(`http://localhost:${port}/health`, { signal: AbortSignal.timeout(1000) });
      return true;
    } catch {
      // refused: the expected case
    }
  }
  return false;
}

export async function benchCli(): Promise<void> {
  execFileSync(process.execPath, [join(cliDir, 'build.mjs')], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  // A compose file, so `up --dry-run` does its real work (find the file, print the command).
  writeFileSync(join(dir, 'compose.yml'), 'services: {}\n');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, NO_COLOR: '1' };
  const cases: Case[] = [
    { label: 'node -e 0 (baseline)', args: ['-e', '0'], budget: undefined, samples: [] },
    svc('svc --version', ['--version'], 15),
    svc('svc --help', ['--help'], 15),
    svc('svc (catalog)', [], 40),
    svc('svc status --json (no runtime)', ['status', '--json'], 40),
    svc('svc up --dry-run --json', ['up', '--dry-run', '--json'], 40),
    ...['create', 'connect', 'disconnect', 'down', 'restart', 'status', 'tokens'].map((c) => svc(`svc ${c} --help`, [c, '--help'], 40)),
    svc('svc tokens list --help', ['tokens', 'list', '--help'], 40),
  ];
  try {
    // One unmeasured round warms the file-system cache, as a user's second invocation would be.
    for (const c of cases) once(c.args, dir, env);
    for (let round = 0; round < RUNS; round += 1) for (const c of cases) c.samples.push(once(c.args, dir, env));
    const medianOf = (c: Case): number => percentile([...c.samples].sort((a, b) => a - b), 50);
    const baseline = medianOf(cases[0]!);
    process.stdout.write(`\nCLI cold start (${RUNS} interleaved runs each, wall-clock ms per process)\n`);
    const header = ['case', 'median', 'min', 'p90', 'over baseline', 'budget'];
    const lines = cases.map((c) => {
      const s = [...c.samples].sort((a, b) => a - b);
      const over = medianOf(c) - baseline;
      const budget = c.budget === undefined ? '' : `${over <= c.budget ? 'ok' : 'OVER'} (${c.budget})`;
      return [c.label, medianOf(c).toFixed(1), (s[0] ?? Number.NaN).toFixed(1), percentile(s, 90).toFixed(1), c.budget === undefined ? '' : `+${over.toFixed(1)}`, budget];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
    const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    process.stdout.write(`${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
    for (const l of lines) process.stdout.write(`${fmt(l)}\n`);
    if (await defaultPortAnswers()) {
      process.stdout.write('note: a runtime answers on a default port, so status measured a successful discovery\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCli();
