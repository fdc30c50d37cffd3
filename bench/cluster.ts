/**
 * Scaling out: agent runs per second and p99 through a round-robin proxy with one and with
 * three runtime processes on one PostgreSQL, against one runtime called directly (the
 * baseline), in the same run. Needs PostgreSQL: TEST_POSTGRES_URL (as the tests) or it skips.
 * On this 2-core machine the runtimes, the database, the fake model and the load generator
 * share two cores, so the ratio shows the cost of the proxy and of coordination more than a gain.
 *   npx tsx --conditions=source bench/cluster.ts   (BENCH_DURATION, BENCH_CONNECTIONS)
 */
import { postgresTestDatabase } from '../packages/runtime/test/support/databases.js';
import { startFakeLlm } from '../packages/runtime/test/support/fake-llm.js';
import { CLUSTER_KEY, startCluster } from '../packages/runtime/test/cluster/cluster.js';
import { startProxy } from '../packages/runtime/test/cluster/proxy.js';
import { load, printTable, type LoadRequest } from './support/load.js';

const request: LoadRequest = {
  method: 'POST',
  headers: { authorization: `Bearer ${CLUSTER_KEY}`, 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'hello there, how are you today', stream: false }),
};

export async function benchCluster(): Promise<void> {
  if (!postgresTestDatabase.available) {
    process.stdout.write('\nCluster: skipped (set TEST_POSTGRES_URL to a PostgreSQL with pgvector)\n');
    return;
  }
  const fake = await startFakeLlm();
  const database = await postgresTestDatabase.create();
  const cluster = await startCluster(database, { llmUrl: fake.url });
  const single = await startProxy([cluster.runtimes[0]!.url]);
  try {
    const direct = await load('one runtime, direct', `${cluster.runtimes[0]!.url}/agents/writer/runs`, request);
    const one = await load('proxy -> one runtime', `${single.url}/agents/writer/runs`, request);
    const three = await load('proxy -> three runtimes', `${cluster.url}/agents/writer/runs`, request);
    printTable('Cluster: agent runs (stream=false), instant model, PostgreSQL', [direct, one, three], direct);
    process.stdout.write(`three runtimes vs one behind the same proxy: ${(three.requestsPerSecond / one.requestsPerSecond).toFixed(2)}x runs/s\n`);
  } finally {
    await single.close();
    await cluster.stop();
    await database.cleanup();
    await fake.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCluster();
