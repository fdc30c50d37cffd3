/**
 * Tracing's own work per run, measured alone: the real tracer, writer and trace store on a
 * SQLite file, fed the spans an instant-model agent run makes (the run, one model call with
 * the conversation sent and the answer), written in batches of the size a busy runtime's
 * 200 ms window gathers. CPU time of this process over RUNS runs, so the figure does not
 * depend on what else shares the machine's cores the way runs per second does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDb } from '../../packages/runtime/src/storage/sqlite/sqlite-db.js';
import { Traces } from '../../packages/runtime/src/traces/traces.js';
import { timeOrderedId } from '../../packages/runtime/src/util/ids.js';
import { silentLogger } from '../../packages/runtime/src/util/logger.js';

const MESSAGE = 'hello there, how are you today';
const RUNS = 20_000;
/** Runs ended in one 200 ms window at ~500 runs a second. */
const BATCH = 100;

function oneRun(traces: Traces): void {
  const run = traces.tracer.startRun(
    { runId: timeOrderedId(), sessionId: timeOrderedId(), componentType: 'agent', componentId: 'echo', userId: null },
    { input: MESSAGE },
  );
  const model = run.child('model', 'openai/bench', {
    provider: 'openai',
    model: 'bench',
    messages_sent: [
      { role: 'system', content: 'Repeat the message.' },
      { role: 'user', content: MESSAGE },
    ],
  });
  model.end('ok', {
    message_received: { role: 'assistant', content: MESSAGE },
    input_tokens: 12,
    output_tokens: 7,
    total_tokens: 19,
    cached_tokens: null,
    cache_write_tokens: null,
    finish_reason: 'stop',
    latency_ms: 1,
    ttft_ms: null,
  });
  run.finish('COMPLETED', null);
}

/** Microseconds of CPU per traced run. */
export async function tracingWorkPerRun(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-tracing-'));
  const db = new SqliteDb({ path: join(dir, 'traces.db') });
  try {
    await db.migrate();
    const traces = new Traces({ db, log: silentLogger, retentionDays: 30 });
    // A first pass warms the JIT and gives the tables some history, as a serving runtime has.
    for (let i = 0; i < RUNS / 4; i++) {
      oneRun(traces);
      if (i % BATCH === BATCH - 1) await traces.writer.flush();
    }
    await traces.writer.flush();
    const before = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) {
      oneRun(traces);
      if (i % BATCH === BATCH - 1) await traces.writer.flush();
    }
    await traces.writer.flush();
    const spent = process.cpuUsage(before);
    await traces.close();
    return (spent.user + spent.system) / RUNS;
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
