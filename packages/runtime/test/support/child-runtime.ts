/**
 * Starts `runtime-process.ts` (or another script that prints `listening <url>`) as a child
 * process: a runtime that can really be killed, or whose event loop nothing else shares.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./runtime-process.ts', import.meta.url));

export interface ChildRuntime {
  url: string;
  port: number;
  process: ChildProcess;
  /** SIGKILL: no shutdown code runs, as when a machine or container dies. */
  kill(): Promise<void>;
}

/** `startTimeoutMs`: how long the script may take to print `listening` (default 20 s). */
export async function startChildRuntime(env: Record<string, string>, scriptUrl?: URL, startTimeoutMs = 20_000): Promise<ChildRuntime> {
  const child = spawn(process.execPath, ['--import', 'tsx', scriptUrl ? fileURLToPath(scriptUrl) : script], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`child runtime did not start in ${startTimeoutMs / 1000} s: ${stderr}`)), startTimeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child runtime exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    process: child,
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** A loopback port that is free right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * A knowledge runtime in a child process on a test's database and embeddings service, to be
 * killed with -9: a short run lease, so a survivor takes its jobs over soon; no model.
 */
export async function startKnowledgeChild(options: { databaseUrl: string; embeddingsUrl: string; knowledgePath?: string | undefined }): Promise<ChildRuntime> {
  return startChildRuntime({
    DATABASE_URL: options.databaseUrl,
    EMBEDDINGS_URL: options.embeddingsUrl,
    ...(options.knowledgePath ? { KNOWLEDGE_PATH: options.knowledgePath } : {}),
    FAKE_LLM_URL: 'http://127.0.0.1:9',
    RUN_LEASE_SECONDS: '2',
    PORT: String(await freePort()),
  });
}
