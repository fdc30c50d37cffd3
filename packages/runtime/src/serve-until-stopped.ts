/**
 * @module serve-until-stopped
 * The `main` of a runtime process: build the runtime, serve it, log one line with its URL, and
 * on SIGINT or SIGTERM (how terminals and containers stop a process) let in-flight requests
 * finish, close the database and exit 0. Startup problems are the operator's to fix, so
 * configuration errors print one sentence and exit 1, never a stack trace.
 */
import { ConfigurationError, RuntimeError } from './errors.js';
import type { Runtime } from './runtime.js';

function fail(error: unknown): never {
  if (error instanceof ConfigurationError || RuntimeError.isInstance(error)) {
    process.stderr.write(`error: ${error.message}\n`);
  } else {
    process.stderr.write(`error: the runtime failed to start\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}

/** Serves the runtime `create` builds until the process is told to stop; never returns on failure. */
export async function serveUntilStopped(create: () => Runtime): Promise<void> {
  let runtime: Runtime;
  try {
    runtime = create();
  } catch (error) {
    fail(error);
  }
  let server;
  try {
    server = await runtime.serve();
  } catch (error) {
    await runtime.close().catch(() => {});
    fail(error);
  }
  process.stdout.write(`${runtime.name} runtime listening on ${server.url} (control panel: ${server.url}/ui, API docs: ${server.url}/docs)\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal} received: finishing in-flight requests\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => fail(error),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
