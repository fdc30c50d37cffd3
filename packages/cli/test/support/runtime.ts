/**
 * A REAL runtime on loopback for the black-box tests (the CLI under test still only sees HTTP).
 */
import { createServer, type Server } from 'node:net';
import { Runtime, silentLogger, type RuntimeOptions } from '@svc/runtime';

export interface TestRuntime {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRuntime(options: RuntimeOptions = {}, host = '127.0.0.1'): Promise<TestRuntime> {
  const runtime = new Runtime({ env: {}, ...options }, { logger: silentLogger });
  const server = await runtime.serve({ port: 0, host });
  const port = Number(new URL(server.url).port);
  return { url: `http://127.0.0.1:${port}`, port, stop: () => server.close() };
}

/** A loopback port that nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
