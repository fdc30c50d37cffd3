/**
 * One autocannon run and the figures we report from it.
 */
import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export async function load(label: string, url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  // A short warm-up lets the JIT settle before the measured run.
  await autocannon({ url, connections: 10, duration: 1, headers });
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  return {
    label,
    requestsPerSecond: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export function printTable(title: string, rows: LoadResult[], baseline: LoadResult): void {
  process.stdout.write(`\n${title} (${DURATION_S}s, ${CONNECTIONS} connections, loopback)\n`);
  const header = ['case', 'req/s', 'vs baseline', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'];
  const lines = rows.map((r) => [
    r.label,
    String(r.requestsPerSecond),
    `${((r.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(0)}%`,
    String(r.p50Ms),
    String(r.p99Ms),
    String(r.errors),
    String(r.non2xx),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  process.stdout.write(`${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const l of lines) process.stdout.write(`${fmt(l)}\n`);
}
