/**
 * One autocannon run and the figures we report from it.
 */
import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  errors: number;
  non2xx: number;
}

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface LoadRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Concurrent connections; default CONNECTIONS. Use 1 to measure latency without queueing. */
  connections?: number;
}

export async function load(label: string, url: string, request: LoadRequest = {}): Promise<LoadResult> {
  const { method = 'GET', headers = {}, body, connections = CONNECTIONS } = request;
  const options = { url, method, headers, ...(body === undefined ? {} : { body }) };
  // A short warm-up lets the JIT settle before the measured run.
  await autocannon({ ...options, connections: 10, duration: 1 });
  const r = await autocannon({ ...options, connections, duration: DURATION_S });
  return {
    label,
    connections,
    requestsPerSecond: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    meanMs: r.latency.average,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export function printTable(title: string, rows: LoadResult[], baseline: LoadResult): void {
  process.stdout.write(`\n${title} (${DURATION_S}s per case, loopback)\n`);
  const header = ['case', 'conns', 'req/s', 'vs baseline', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'];
  const lines = rows.map((r) => [
    r.label,
    String(r.connections),
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
