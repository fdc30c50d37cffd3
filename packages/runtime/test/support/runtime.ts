/**
 * Starts real runtimes on loopback for end-to-end tests, on a fresh database of each kind.
 */
import { Runtime, type RunningRuntime } from '../../src/runtime.js';
import type { RuntimeOptions } from '../../src/runtime-options.js';
import type { AppParts } from '../../src/server/app.js';
import { silentLogger } from '../../src/server/logger.js';
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
  const runtime = new Runtime({ env: {}, ...options, db: database.open() }, { logger: silentLogger, parts });
  const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
  return {
    runtime,
    server,
    url: server.url,
    database,
    stop: async () => {
      await server.close();
      await database.cleanup();
    },
  };
}
