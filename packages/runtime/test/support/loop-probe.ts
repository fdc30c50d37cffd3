/**
 * @module test/support/loop-probe
 * How responsive a runtime stays while it works: `/health` asked every 20 ms from a process of
 * its own (so the asking never shares the measured event loop), and the event-loop delay inside
 * this process (monitorEventLoopDelay), for a runtime started in it.
 */
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LatencyFigures {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

export interface Probe {
  /** Stops probing and answers the figures, in ms. */
  stop(): Promise<LatencyFigures>;
}

export interface HealthProbe extends Probe {
  /** Settles once the first (unmeasured) request has been answered and measuring has begun. */
  ready: Promise<void>;
  /** Every answer so far, in order. */
  answers: readonly HealthAnswer[];
  /** The answers to requests sent in [from, to] (epoch ms). */
  between(from: number, to: number): HealthAnswer[];
}

function figures(values: number[]): LatencyFigures {
  const sorted = values.toSorted((a, b) => a - b);
  const at = (p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
  return { samples: sorted.length, p50: at(50), p99: at(99), max: sorted.at(-1) ?? 0 };
}

// A request is sent every 20 ms, or as soon as the previous one answers when it took longer; a
// request still open when probing stops counts with the time it has waited so far. The first
// request is not measured (it loads the sampler's HTTP client and opens the connection, which
// is the sampler's cost, not the runtime's); `R` on stdout says measuring has begun. Each answer
// is a line `<epoch ms when asked> <latency ms>` (latency `fail` when the request failed), so a
// caller can look at any stretch of time while probing goes on.
const SAMPLER = `
const url = process.argv[1];
let stopping = false;
let open;
process.stdin.on('data', () => {});
process.stdin.on('end', () => { stopping = true; });
(async () => {
  try { await (await fetch(url)).arrayBuffer(); } catch { }
  process.stdout.write('R\\n');
  while (!stopping) {
    const start = performance.now();
    open = { start, at: Date.now() };
    let ok = true;
    try { const res = await fetch(url); await res.arrayBuffer(); ok = res.ok; } catch { ok = false; }
    open = undefined;
    const took = performance.now() - start;
    process.stdout.write(Date.now() - Math.round(took) + ' ' + (ok ? took.toFixed(2) : 'fail') + '\\n');
    if (took < 20) await new Promise((r) => setTimeout(r, 20 - took));
  }
  if (open !== undefined) process.stdout.write(open.at + ' ' + (performance.now() - open.start).toFixed(2) + '\\n');
})();
`;

/** One `/health` request: when it was sent (epoch ms) and how long it took (undefined: it failed). */
export interface HealthAnswer {
  at: number;
  ms: number | undefined;
}

/** Asks `${base}/health` every 20 ms from a child process until stopped; figures are request latencies. */
export function probeHealth(base: string): HealthProbe {
  const child = spawn(process.execPath, ['-e', SAMPLER, `${base}/health`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answers: HealthAnswer[] = [];
  let pending = '';
  let begun: () => void;
  const ready = new Promise<void>((resolve) => (begun = resolve));
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === 'R') begun();
      const [at, ms] = line.split(' ');
      if (ms !== undefined) answers.push({ at: Number(at), ms: ms === 'fail' ? undefined : Number(ms) });
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A sampler that ends without measuring (the runtime is gone) must not leave a caller waiting.
  void exited.then(() => begun());
  return {
    ready,
    answers,
    between: (from, to) => answers.filter((a) => a.at >= from && a.at <= to),
    async stop() {
      child.stdin.end();
      await exited;
      return figures(answers.map((a) => a.ms ?? Number.POSITIVE_INFINITY));
    },
  };
}

const ms = (ns: number) => ns / 1e6;

/** The event-loop delay of this process until stopped (resolution 10 ms, as monitorEventLoopDelay measures it). */
export function probeEventLoop(): Probe {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    stop() {
      histogram.disable();
      return Promise.resolve({ samples: histogram.count, p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) });
    },
  };
}
