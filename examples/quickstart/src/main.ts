/**
 * `npm start`: serve the quickstart runtime on PORT (7777) and HOST (localhost) until SIGINT or
 * SIGTERM, then finish in-flight requests and close the database.
 */
import { ConfigurationError, RuntimeError } from '@svc/runtime';
import { createQuickstartRuntime } from './runtime.js';

function fail(error: unknown): never {
  // Configuration and startup problems are the user's to fix: a sentence, not a stack trace.
  if (error instanceof ConfigurationError || RuntimeError.isInstance(error)) {
    process.stderr.write(`error: ${error.message}\n`);
  } else {
    process.stderr.write(`error: the runtime failed to start\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}

async function main(): Promise<void> {
  const runtime = createQuickstartRuntime();
  let server;
  try {
    server = await runtime.serve();
  } catch (error) {
    await runtime.close().catch(() => {});
    fail(error);
  }
  process.stdout.write(`${runtime.name} runtime listening on ${server.url} (API docs: ${server.url}/docs)\n`);

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

main().catch(fail);
