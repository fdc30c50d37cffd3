/**
 * The runtime's own cost per agent run: an agent whose model is a loopback server that answers
 * instantly, against that model server called directly in the same run (the baseline). Each
 * run also creates a session and stores the run in SQLite, as in production.
 * - throughput: runs per second with many clients at once;
 * - added latency: one client at a time (no queueing), the runtime's mean minus the model
 *   server's mean over the same transport (JSON or SSE);
 * - tracing: runs per second of a second runtime with TRACES_ENABLED=false, against the traced
 *   one measured in the same run (issue 19's target: tracing costs at most 5 %).
 *   npx tsx --conditions=source bench/runs.ts   (BENCH_DURATION, BENCH_CONNECTIONS)
 */
import { load, printTable, type LoadRequest, type LoadResult } from './support/load.js';
import { startServer } from './support/servers.js';

const MESSAGE = 'hello there, how are you today';

function post(body: unknown, connections?: number): LoadRequest {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(connections ? { connections } : {}) };
}

const chat = (stream: boolean) => ({ model: 'bench', stream, messages: [{ role: 'user', content: MESSAGE }] });
const run = (stream: boolean) => ({ message: MESSAGE, stream });
const added = (withRuntime: LoadResult, alone: LoadResult) => (withRuntime.meanMs - alone.meanMs).toFixed(2);

export async function benchRuns(): Promise<void> {
  const model = await startServer('fake-llm-server.ts');
  const runtime = await startServer('agent-server.ts', { MODEL_URL: model.url });
  // Two fresh runtimes for the tracing comparison, so neither carries the other cases' history
  // (its sessions and runs tables grow with every run it serves).
  const traced = await startServer('agent-server.ts', { MODEL_URL: model.url });
  const untraced = await startServer('agent-server.ts', { MODEL_URL: model.url, TRACES_ENABLED: 'false' });
  const chatUrl = `${model.url}/v1/chat/completions`;
  const runUrl = `${runtime.url}/agents/echo/runs`;
  try {
    const rows: Record<string, LoadResult> = {};
    for (const connections of [undefined, 1]) {
      const suffix = connections === 1 ? ' (1 client)' : '';
      rows[`direct${suffix}`] = await load(`model server direct${suffix}`, chatUrl, post(chat(false), connections));
      rows[`directSse${suffix}`] = await load(`model server direct, SSE${suffix}`, chatUrl, post(chat(true), connections));
      rows[`run${suffix}`] = await load(`agent run${suffix}`, runUrl, post(run(false), connections));
      rows[`runSse${suffix}`] = await load(`agent run, SSE${suffix}`, runUrl, post(run(true), connections));
    }
    // Off, on, off, on: alternating halves the drift of a warming machine between the two.
    const untracedRuns = `${untraced.url}/agents/echo/runs`;
    const off1 = await load('agent run, tracing off', untracedRuns, post(run(false)));
    const tracedRuns = `${traced.url}/agents/echo/runs`;
    const on1 = await load('agent run, tracing on', tracedRuns, post(run(false)));
    const off2 = await load('agent run, tracing off (again)', untracedRuns, post(run(false)));
    const on2 = await load('agent run, tracing on (again)', tracedRuns, post(run(false)));
    Object.assign(rows, { tracingOff: off1, tracingOn: on1, tracingOff2: off2, tracingOn2: on2 });
    printTable('Runs: one agent run per request, instant model', Object.values(rows), rows.direct!);
    const off = (off1.requestsPerSecond + off2.requestsPerSecond) / 2;
    const on = (on1.requestsPerSecond + on2.requestsPerSecond) / 2;
    process.stdout.write(`tracing: ${on.toFixed(0)} runs/s on vs ${off.toFixed(0)} off (${(((off - on) / off) * 100).toFixed(1)} % fewer; target at most 5 %)\n`);
    process.stdout.write(
      `added latency per run, 1 client: ${added(rows['run (1 client)']!, rows['direct (1 client)']!)} ms (JSON), ` +
        `${added(rows['runSse (1 client)']!, rows['directSse (1 client)']!)} ms (SSE)\n`,
    );
  } finally {
    await Promise.all([runtime.stop(), traced.stop(), untraced.stop(), model.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRuns();
