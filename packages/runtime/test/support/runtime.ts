/**
 * Starts real runtimes on loopback for end-to-end tests, on a fresh database of each kind.
 */
import { Runtime, type RunningRuntime } from '../../src/runtime.js';
import type { RuntimeOptions } from '../../src/runtime-options.js';
import type { AppParts } from '../../src/server/app.js';
import { silentLogger } from '../../src/util/logger.js';
import type { TestDatabase, TestDatabaseKind } from './databases.js';

export interface StartedRuntime {
  runtime: Runtime;
  server: RunningRuntime;
  url: string;
  database: TestDatabase;
  stop(): Promise<void>;
}

export async function startRuntime(
  kind: TestDatabaseKind,
  options: RuntimeOptions = {},
  parts: AppParts = {},
): Promise<StartedRuntime> {
  const database = await kind.create();
  const started = await startRuntimeOn(database, options, { parts });
  return {
    ...started,
    stop: async () => {
      await started.stop();
      await database.cleanup();
    },
  };
}

/**
 * Another runtime on an existing test database, as several runtimes share one database in
 * production. Stopping it leaves the database in place.
 */
export async function startRuntimeOn(
  database: TestDatabase,
  options: RuntimeOptions = {},
  internals: { parts?: AppParts; runLeaseMs?: number; port?: number } = {},
): Promise<StartedRuntime> {
  const runtime = new Runtime(
    { env: {}, ...options, db: database.open() },
    { logger: silentLogger, parts: internals.parts ?? {}, ...(internals.runLeaseMs ? { runLeaseMs: internals.runLeaseMs } : {}) },
  );
  const server = await runtime.serve({ port: internals.port ?? 0, host: '127.0.0.1' });
  return { runtime, server, url: server.url, database, stop: () => server.close() };
}
