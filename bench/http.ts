/**
 * HTTP throughput of the core routes against a bare node:http server measured in the same run.
 *   npm run bench            (all benchmarks)
 *   npx tsx bench/http.ts    (this one; BENCH_DURATION=10 for longer runs)
 */
import { load, printTable } from './support/load.js';
import { startServer } from './support/servers.js';

export async function benchHttp(): Promise<void> {
  const baselineServer = await startServer('baseline-server.ts');
  const runtimeServer = await startServer('runtime-server.ts');
  try {
    const baseline = await load('node:http baseline', baselineServer.url);
    const health = await load('GET /health', `${runtimeServer.url}/health`);
    const info = await load('GET /info', `${runtimeServer.url}/info`);
    printTable('HTTP: core routes', [baseline, health, info], baseline);
  } finally {
    await Promise.all([baselineServer.stop(), runtimeServer.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchHttp();
