/**
 * Three runtimes, each a process of its own, on one PostgreSQL database behind a round-robin
 * proxy: what a user runs behind a load balancer. Tests talk to the proxy only (and kill
 * runtimes by hand).
 */
import { startChildRuntime, freePort, type ChildRuntime } from '../support/child-runtime.js';
import type { TestDatabase } from '../support/databases.js';
import { startProxy, type RoundRobinProxy } from './proxy.js';

export const CLUSTER_KEY = 'cluster-test-security-key';

export interface Cluster {
  url: string;
  runtimes: ChildRuntime[];
  proxy: RoundRobinProxy;
  stop(): Promise<void>;
}

export async function startCluster(
  database: TestDatabase,
  options: { size?: number; llmUrl: string; embeddingsUrl?: string; leaseSeconds?: number; env?: Record<string, string> },
): Promise<Cluster> {
  const runtimes: ChildRuntime[] = [];
  try {
    for (let i = 0; i < (options.size ?? 3); i++) {
      runtimes.push(
        await startChildRuntime({
          DATABASE_URL: database.url,
          FAKE_LLM_URL: options.llmUrl,
          ...(options.embeddingsUrl ? { EMBEDDINGS_URL: options.embeddingsUrl } : {}),
          OS_SECURITY_KEY: CLUSTER_KEY,
          RUN_LEASE_SECONDS: String(options.leaseSeconds ?? 2),
          PORT: String(await freePort()),
          ...options.env,
        }),
      );
    }
  } catch (error) {
    await Promise.all(runtimes.map((r) => r.kill()));
    throw error;
  }
  const proxy = await startProxy(runtimes.map((r) => r.url));
  return {
    url: proxy.url,
    runtimes,
    proxy,
    stop: async () => {
      await proxy.close();
      await Promise.all(runtimes.map((r) => r.kill()));
    },
  };
}
