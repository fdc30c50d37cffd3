/**
 * @module workers/thread
 * A pool worker that is a thread of this process (node:worker_threads): cheap to start, buffers
 * move to it without a copy, its V8 heap is capped (`resourceLimits`); but it shares the
 * process's native memory, so a parser that allocates outside the heap can still take the
 * whole process down. Used for the pool's own cheap tasks; parsers of uploads run in processes.
 *
 * The worker file is found next to this module: `worker.js` in the built package, or, when this
 * module itself runs from TypeScript sources (tests, tsx), `worker.ts` loaded through tsx's
 * loader, registered inside the worker before the entry is imported.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Executor, ExecutorEvents } from './executor.js';
import type { ReadyMessage, TaskMessage, TaskReply } from './protocol.js';

export interface ThreadLimits {
  /** V8 old-generation heap, in MB. */
  memoryMb: number;
  /** The thread's stack, in MB. */
  stackMb?: number | undefined;
}

export function defaultThreadEntry(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
}

export function startThread(entry: URL, limits: ThreadLimits, events: ExecutorEvents): Executor {
  const resourceLimits: ResourceLimits = { maxOldGenerationSizeMb: limits.memoryMb, ...(limits.stackMb !== undefined ? { stackSizeMb: limits.stackMb } : {}) };
  const worker = startWorker(entry, resourceLimits);
  worker.on('message', (message: TaskReply | ReadyMessage) => ('ready' in message ? events.ready() : events.reply(message)));
  worker.on('error', (error: Error) => {
    const code = (error as NodeJS.ErrnoException).code;
    events.failed(code === 'ERR_WORKER_OUT_OF_MEMORY' ? { kind: 'thread-heap', limitMb: limits.memoryMb, cause: error } : { kind: 'crash', detail: error.message, cause: error });
  });
  worker.on('exit', (code) => events.failed({ kind: 'exit', code }));
  return {
    kind: 'thread',
    send: (message: TaskMessage, transfer) => worker.postMessage(message, [...transfer]),
    busy: (yes) => (yes ? worker.ref() : worker.unref()),
    terminate: async () => {
      await worker.terminate();
    },
  };
}

let tsxApi: string | undefined;

/** The file URL of tsx's ESM loader API (`tsx/esm/api`, import condition), a devDependency. */
function tsxLoaderApi(): string {
  if (tsxApi) return tsxApi;
  const manifestPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  tsxApi = pathToFileURL(join(dirname(manifestPath), manifest.exports['./esm/api']!.import.default)).href;
  return tsxApi;
}

/**
 * Starts a worker on an entry module. A `.js` entry (the built package) is loaded directly. A
 * `.ts` entry (sources under vitest or tsx) is imported after tsx's ESM loader is registered in
 * the new thread: loader hooks are per thread, and `--import tsx` in a worker's execArgv does not
 * apply to the worker's own entry on Node 20.
 */
function startWorker(entry: URL, resourceLimits: ResourceLimits): Worker {
  const options = { resourceLimits, execArgv: inheritedExecArgv() };
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const boot = `import { register } from ${JSON.stringify(tsxLoaderApi())};\nregister();\nawait import(${JSON.stringify(entry.href)});\n`;
  return new Worker(boot, { ...options, eval: true });
}

/** Options that take a value as the next argument, among those dropped below. */
const WITH_VALUE = ['--input-type', '-e', '--eval', '-p', '--print'];

/**
 * The process's Node options, as workers inherit them by default, less those about the main
 * script given on the command line (`--input-type`, `--eval`, `--print`), which a worker refuses
 * or would run again. `drop` removes more (a process worker sets its own heap and stack, and
 * must not open the debugger's port again).
 */
export function inheritedExecArgv(drop: (arg: string) => boolean = () => false): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (WITH_VALUE.includes(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('--input-type=') || arg.startsWith('--eval=') || arg.startsWith('--print=') || drop(arg)) continue;
    out.push(arg);
  }
  return out;
}

/** The file URL of tsx's loader (`tsx`'s main export), for a process started on a `.ts` entry. */
export function tsxLoader(): string {
  const manifestPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports: Record<string, unknown> };
  return pathToFileURL(join(dirname(manifestPath), manifest.exports['.'] as string)).href;
}
