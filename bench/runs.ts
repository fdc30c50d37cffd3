/**
 * The runtime's own cost per agent run: an agent whose model is a loopback server that answers
 * instantly, against that model server called directly in the same run (the baseline). Each
 * run also creates a session and stores the run in SQLite, as in production.
 * - throughput: runs per second with many clients at once;
 * - added latency: one client at a time (no queueing), the runtime's mean minus the model
 *   server's mean over the same transport (JSON or SSE);
 * - tracing (issue 19's target: at most 5 %): tracing's own CPU per run, measured alone,
 *   against the runtime's; then a traced runtime against an untraced one over BENCH_PAIRS
 *   pairs loaded at once, beside the same comparison of two untraced ones.
 *   npx tsx --conditions=source bench/runs.ts   (BENCH_DURATION, BENCH_CONNECTIONS, BENCH_PAIRS)
 */
import { DURATION_S, load, printTable, type LoadRequest, type LoadResult } from './support/load.js';
import { startServer } from './support/servers.js';
import { tracingWorkPerRun } from './support/tracing-work.js';

const MESSAGE = 'hello there, how are you today';
const PAIRS = Number(process.env.BENCH_PAIRS ?? 6);
const CONTROL_PAIRS = Math.max(2, Math.round(PAIRS / 2));
const WARMUP_S = 5;
const PAIR_CONNECTIONS = 25;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function post(body: unknown, connections?: number): LoadRequest {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(connections ? { connections } : {}) };
}

const chat = (stream: boolean) => ({ model: 'bench', stream, messages: [{ role: 'user', content: MESSAGE }] });
const run = (stream: boolean) => ({ message: MESSAGE, stream });
const added = (withRuntime: LoadResult, alone: LoadResult) => (withRuntime.meanMs - alone.meanMs).toFixed(2);

const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;

interface PairFigures {
  /** The second runtime's CPU per run over the first's. */
  cpu: number;
  /** The second runtime's runs per second over the first's. */
  rps: number;
}

/**
 * Two fresh runtimes under the same load at the same time, so whatever else the machine does
 * weighs on both alike; fresh for every pair, because one Node process ran the same code up to
 * 15 % cheaper or dearer than the next for its whole life: most of the spread this bench saw
 * between identical runtimes was between processes, not between rounds.
 */
async function pair(modelUrl: string, first: Record<string, string>, second: Record<string, string>): Promise<PairFigures> {
  const [a, b] = await Promise.all([startServer('agent-server.ts', { MODEL_URL: modelUrl, ...first }), startServer('agent-server.ts', { MODEL_URL: modelUrl, ...second })]);
  try {
    const request = (pid: number): LoadRequest => ({ ...post(run(false), PAIR_CONNECTIONS), cpuPid: pid, warmupSeconds: WARMUP_S });
    const [ra, rb] = await Promise.all([load('a', `${a.url}/agents/echo/runs`, request(a.pid)), load('b', `${b.url}/agents/echo/runs`, request(b.pid))]);
    return { cpu: rb.cpuMsPerRequest! / ra.cpuMsPerRequest!, rps: rb.requestsPerSecond / ra.requestsPerSecond };
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

/**
 * Issue 19's target, tracing costs at most 5 % of runs per second. Judged by tracing's own
 * work per run against the runtime's CPU per run: on two shared cores, two identical runtimes'
 * runs per second differ by up to a quarter, far more than the 5 % to resolve. The end-to-end
 * comparison follows anyway: PAIRS pairs of an untraced and a traced runtime, and
 * CONTROL_PAIRS pairs of two untraced ones, whose spread is the machine's noise alone.
 */
async function benchTracing(modelUrl: string, runtimeCpuMsPerRun: number): Promise<void> {
  const work = await tracingWorkPerRun();
  process.stdout.write(
    `\nTracing's own work (tracer, serialisation, batched SQLite writes; measured alone): ${work.toFixed(1)} µs per run, ` +
      `${((work / 1000 / runtimeCpuMsPerRun) * 100).toFixed(1)} % of the ${runtimeCpuMsPerRun.toFixed(2)} ms of CPU the traced runtime spent per run above ` +
      `(target: at most 5 % of runs per second)\n`,
  );
  const off = { TRACES_ENABLED: 'false' };
  const measured: PairFigures[] = [];
  const control: PairFigures[] = [];
  for (let i = 0; i < PAIRS; i++) {
    measured.push(await pair(modelUrl, off, {}));
    if (i < CONTROL_PAIRS) control.push(await pair(modelUrl, off, off));
  }
  const line = (label: string, figures: PairFigures[]) => {
    const cpu = figures.map((f) => f.cpu);
    const rps = figures.map((f) => f.rps);
    return `${label}: CPU per run ${pct(median(cpu))} (pairs ${pct(Math.min(...cpu))} to ${pct(Math.max(...cpu))}), runs/s ${pct(median(rps))}\n`;
  };
  process.stdout.write(
    `End to end, as a cross-check: ${PAIRS} pairs of fresh runtimes, each pair loaded at once (${PAIR_CONNECTIONS} connections each, ` +
      `${WARMUP_S}s warm-up, ${DURATION_S}s measured); medians, and the same comparison between two untraced runtimes for the noise\n`,
  );
  process.stdout.write(line('tracing on vs off', measured));
  process.stdout.write(line(`control, off vs off (${CONTROL_PAIRS} pairs)`, control));
}

export async function benchRuns(): Promise<void> {
  const model = await startServer('fake-llm-server.ts');
  const runtime = await startServer('agent-server.ts', { MODEL_URL: model.url });
  const chatUrl = `${model.url}/v1/chat/completions`;
  const runUrl = `${runtime.url}/agents/echo/runs`;
  try {
    const rows: Record<string, LoadResult> = {};
    for (const connections of [undefined, 1]) {
      const suffix = connections === 1 ? ' (1 client)' : '';
      rows[`direct${suffix}`] = await load(`model server direct${suffix}`, chatUrl, post(chat(false), connections));
      rows[`directSse${suffix}`] = await load(`model server direct, SSE${suffix}`, chatUrl, post(chat(true), connections));
      rows[`run${suffix}`] = await load(`agent run${suffix}`, runUrl, { ...post(run(false), connections), cpuPid: runtime.pid });
      rows[`runSse${suffix}`] = await load(`agent run, SSE${suffix}`, runUrl, post(run(true), connections));
    }
    printTable('Runs: one agent run per request, instant model', Object.values(rows), rows.direct!);
    process.stdout.write(
      `added latency per run, 1 client: ${added(rows['run (1 client)']!, rows['direct (1 client)']!)} ms (JSON), ` +
        `${added(rows['runSse (1 client)']!, rows['directSse (1 client)']!)} ms (SSE)\n`,
    );
    await benchTracing(model.url, rows.run!.cpuMsPerRequest!);
  } finally {
    await Promise.all([runtime.stop(), model.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRuns();
