// The quickstart runtime for bench/retrieval.ts: its SQLite files in BENCH_RETRIEVAL_STORE (kept
// between runs, so a store already ingested is searched again without re-embedding), the local
// embedder with BENCH_RETRIEVAL_WORKERS worker processes, and nothing else from the environment.
import { createQuickstartRuntime } from '../../examples/quickstart/src/runtime.js';

const runtime = createQuickstartRuntime({
  env: { DATABASE_URL: process.env.BENCH_RETRIEVAL_STORE!, LOCAL_EMBEDDING_WORKERS: process.env.BENCH_RETRIEVAL_WORKERS ?? '2' },
});
const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
