/**
 * One load run and the figures we report from it. Debian's wrk, when installed, generates the
 * load from a process of its own (a load generator in the benchmark's own event loop competes
 * with the servers for this machine's two cores); otherwise autocannon, in process.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

const WRK = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p));
export const LOAD_GENERATOR = process.env.BENCH_LOAD === 'autocannon' || !WRK ? 'autocannon (in process)' : 'wrk (separate process)';

export interface LoadResult {
  label: string;
  connections: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  errors: number;
  non2xx: number;
  /** Requests completed in the measured run. */
  requests: number;
  /** CPU time (user + system, all threads) the process `cpuPid` spent per request, if asked. */
  cpuMsPerRequest?: number;
}

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface LoadRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Concurrent connections; default CONNECTIONS. Use 1 to measure latency without queueing. */
  connections?: number;
  /**
   * A server process whose CPU time to sample around the measured run: what that process spent
   * per request, apart from the load generator and other servers sharing the cores.
   */
  cpuPid?: number;
  /** Seconds of unmeasured load first, so the JIT has settled (default 1). */
  warmupSeconds?: number;
}

/** utime + stime of a process and its threads, in ms (Linux /proc: fields 14 and 15, in USER_HZ ticks, always 100). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

async function measured<T extends { requests: number }>(pid: number | undefined, run: () => Promise<T>): Promise<T & { cpuMsPerRequest?: number }> {
  if (pid === undefined) return run();
  const before = cpuMs(pid);
  const result = await run();
  const spent = cpuMs(pid) - before;
  return { ...result, cpuMsPerRequest: result.requests > 0 ? spent / result.requests : NaN };
}

export async function load(label: string, url: string, request: LoadRequest = {}): Promise<LoadResult> {
  if (WRK && process.env.BENCH_LOAD !== 'autocannon') return loadWithWrk(WRK, label, url, request);
  const { method = 'GET', headers = {}, body, connections = CONNECTIONS } = request;
  const options = { url, method, headers, ...(body === undefined ? {} : { body }) };
  // A short warm-up lets the JIT settle before the measured run.
  await autocannon({ ...options, connections: 10, duration: request.warmupSeconds ?? 1 });
  const r = await measured(request.cpuPid, async () => {
    const result = await autocannon({ ...options, connections, duration: DURATION_S });
    return { result, requests: result.requests.total };
  });
  const { result } = r;
  return {
    label,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: r.requests,
    ...(r.cpuMsPerRequest === undefined ? {} : { cpuMsPerRequest: r.cpuMsPerRequest }),
  };
}

export function printTable(title: string, rows: LoadResult[], baseline: LoadResult): void {
  process.stdout.write(`\n${title} (${DURATION_S}s per case, loopback, load from ${LOAD_GENERATOR})\n`);
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

/** wrk reports latencies with units; the table shows milliseconds. */
function millis(value: string, unit: string): number {
  const n = Number(value);
  if (unit === 'us') return n / 1000;
  if (unit === 's') return n * 1000;
  if (unit === 'm') return n * 60_000;
  return n;
}

async function loadWithWrk(wrk: string, label: string, url: string, request: LoadRequest): Promise<LoadResult> {
  const { method = 'GET', headers = {}, body, connections = CONNECTIONS } = request;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-wrk-'));
  try {
    // The request (method, headers, body) goes through a Lua script, the way wrk takes bodies.
    const script = join(dir, 'request.lua');
    const lua = [
      `wrk.method = ${JSON.stringify(method)}`,
      ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
      ...(body === undefined ? [] : [`wrk.body = ${JSON.stringify(body)}`]),
    ];
    writeFileSync(script, `${lua.join('\n')}\n`);
    const run = (seconds: number, conns: number) =>
      promisify(execFile)(wrk, ['-t1', `-c${conns}`, `-d${seconds}s`, '--latency', '-s', script, url], { maxBuffer: 1 << 20 });
    await run(request.warmupSeconds ?? 1, Math.min(10, connections));
    const { stdout, requests, cpuMsPerRequest } = await measured(request.cpuPid, async () => {
      const { stdout: out } = await run(DURATION_S, connections);
      return { stdout: out, requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0) };
    });
    const latency = (p: string) => {
      const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(stdout);
      return m ? Math.round(millis(m[1]!, m[2]!) * 100) / 100 : NaN;
    };
    const mean = /^\s*Latency\s+([\d.]+)(us|ms|s|m)/m.exec(stdout);
    const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
    return {
      label,
      connections,
      requestsPerSecond: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0)),
      p50Ms: latency('50'),
      p99Ms: latency('99'),
      meanMs: mean ? millis(mean[1]!, mean[2]!) : NaN,
      errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
      non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
      requests,
      ...(cpuMsPerRequest === undefined ? {} : { cpuMsPerRequest }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
