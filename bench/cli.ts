/**
 * Cold start of the bundled CLI against `node -e 0` (Node's own floor) measured in the same run.
 *   npm run bench           (all benchmarks)
 *   npx tsx bench/cli.ts    (this one; BENCH_CLI_RUNS=50 for more runs)
 *
 * `svc status --json` runs in an empty directory with no RUNTIME_URL, so it does the real
 * no-runtime work: four loopback probes that are refused, then the error document.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 20);
const cliDir = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const cli = join(cliDir, 'dist', 'svc.mjs');

interface Timing {
  label: string;
  samples: number[];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function time(label: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Timing {
  const samples: number[] = [];
  // One unmeasured run warms the file-system cache, as a user's second invocation would be.
  spawnSync(process.execPath, args, { cwd, env, stdio: 'ignore' });
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    spawnSync(process.execPath, args, { cwd, env, stdio: 'ignore' });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { label, samples };
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
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, NO_COLOR: '1' };
  try {
    const rows = [
      time('node -e 0 (baseline)', ['-e', '0'], dir, env),
      time('svc --version', [cli, '--version'], dir, env),
      time('svc status --json (no runtime)', [cli, 'status', '--json'], dir, env),
    ];
    const baseline = percentile([...rows[0]!.samples].sort((a, b) => a - b), 50);
    process.stdout.write(`\nCLI cold start (${RUNS} runs each, wall-clock ms per process)\n`);
    const header = ['case', 'median', 'min', 'p90', 'over baseline'];
    const lines = rows.map((r) => {
      const s = [...r.samples].sort((a, b) => a - b);
      const median = percentile(s, 50);
      return [r.label, median.toFixed(1), (s[0] ?? Number.NaN).toFixed(1), percentile(s, 90).toFixed(1), `+${(median - baseline).toFixed(1)}`];
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
