/**
 * Starts servers for benchmarks in their own processes, so the load generator and the server
 * never share an event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../..');
const tsx = pathToFileURL(resolve(root, 'node_modules/tsx/dist/loader.mjs')).href;

export interface BenchServer {
  url: string;
  /** The server's process id, for sampling its CPU time. */
  pid: number;
  stop(): Promise<void>;
}

/** Runs `script` (a .ts file that prints `LISTENING <url>` once ready) with extra env. */
export async function startServer(script: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const child: ChildProcess = spawn(process.execPath, ['--conditions=source', '--import', tsx, resolve(import.meta.dirname, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /LISTENING (\S+)/.exec(out);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}
