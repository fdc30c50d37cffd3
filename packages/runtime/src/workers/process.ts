/**
 * @module workers/process
 * A pool worker that is a process of its own (the entry child.ts, over an IPC channel with
 * structured-clone serialization), for parsers of untrusted files: whatever it allocates, the
 * runtime's process is not where it lives, and the pool bounds it:
 *
 * - **Resident memory.** While a task runs, the pool reads the process's VmRSS
 *   (`/proc/<pid>/status`) every `pollMs` (50 ms) and kills the process (SIGKILL, its whole
 *   process group) past `rssMb`. Between two reads a fast allocation can overshoot, so the
 *   process also starts under a data limit (`ulimit -d`, RLIMIT_DATA: the private writable
 *   memory it may commit; V8's reserved-but-unused ranges do not count, unlike `ulimit -v`) of
 *   `rssMb` plus a margin, past which an allocation fails in the process instead. A process
 *   that stays above half its limit after a task is not reused.
 * - **Heap and stack.** `--max-old-space-size` (the smaller of the heap and resident limits) and
 *   `--stack-size` (with the stack's own limit raised to twice that, so V8's bound is reached
 *   first).
 * - **Orphans.** It watches its parent from a small thread and kills itself once the parent is
 *   gone (a runtime killed with SIGKILL cannot stop it), and ignores SIGINT/SIGTERM/SIGHUP: the
 *   runtime decides when its workers stop.
 *
 * The limits need Linux's /proc (resident memory) and a POSIX shell (`/bin/sh`, for the data and
 * stack limits); without them a process still isolates the runtime, under its heap limit only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Executor, ExecutorEvents, WorkerFailure } from './executor.js';
import type { ReadyMessage, TaskMessage, TaskReply } from './protocol.js';
import { inheritedExecArgv, tsxLoader } from './thread.js';

export interface ProcessLimits {
  /** Resident memory, in MB; the process is killed past it. */
  rssMb: number;
  /** V8 old-generation heap, in MB (held at or under rssMb). */
  memoryMb: number;
  /** JavaScript stack, in MB. */
  stackMb: number;
  /** The variables that raise the limits, for the failures' messages. */
  variables: { memory: string; rss: string };
  /** How often resident memory is read while a task runs; default 50 ms. */
  pollMs?: number | undefined;
}

/** Committed memory a process may hold beyond its resident limit before allocations fail. */
const DATA_MARGIN_MB = 256;
/** The tail of a process's stderr kept to tell how it died (V8 prints its out-of-memory report there). */
const STDERR_TAIL = 4096;

const CAN_READ_RSS = existsSync('/proc/self/status');
const SHELL = existsSync('/bin/sh') ? '/bin/sh' : undefined;

export function defaultProcessEntry(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './child.ts' : './child.js', import.meta.url);
}

export function startProcess(entry: URL, limits: ProcessLimits, events: ExecutorEvents): Executor {
  const heapMb = Math.min(limits.memoryMb, limits.rssMb);
  const heapVariable = limits.memoryMb <= limits.rssMb ? limits.variables.memory : limits.variables.rss;
  const child = spawnChild(entry, limits, heapMb);
  let stderr = '';
  let failure: WorkerFailure | undefined;
  let exited = false;
  let poll: NodeJS.Timeout | undefined;
  // 'close', not 'exit': by then stderr has been read to its end.
  const exit = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const fail = (f: WorkerFailure): void => {
    if (failure) return;
    failure = f;
    events.failed(f);
  };
  const kill = (): void => {
    if (exited || child.pid === undefined) return;
    try {
      // Its process group: anything it started dies with it.
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const watch = async (): Promise<void> => {
    const rss = await residentMb(child.pid);
    if (rss !== undefined && rss > limits.rssMb && !exited) {
      fail({ kind: 'rss', limitMb: limits.rssMb });
      kill();
    }
  };

  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)));
  child.on('message', (message: TaskReply | ReadyMessage) => ('ready' in message ? events.ready() : events.reply(message)));
  child.on('error', (error: Error) => fail({ kind: 'crash', detail: error.message, cause: error }));
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    exited = true;
    clearInterval(poll);
    fail(deathOf(code, signal, stderr, heapMb, heapVariable, limits.rssMb));
  });

  return {
    kind: 'process',
    pid: child.pid,
    send: (message: TaskMessage) => {
      // Serialised into the channel at once (structured clone): the caller's buffers stay its own.
      child.send(message);
    },
    busy: (yes) => {
      clearInterval(poll);
      poll = undefined;
      if (yes) {
        child.ref();
        child.channel?.ref();
        (child.stderr as Socket).ref();
        if (CAN_READ_RSS) poll = setInterval(() => void watch(), limits.pollMs ?? 50);
      } else {
        child.unref();
        child.channel?.unref();
        (child.stderr as Socket).unref();
      }
    },
    reusable: async () => {
      const rss = await residentMb(child.pid);
      return !exited && (rss === undefined || rss <= limits.rssMb / 2);
    },
    terminate: async () => {
      clearInterval(poll);
      // Whatever happens next was asked for.
      failure ??= { kind: 'exit', code: 0 };
      kill();
      if (!exited) await exit;
    },
  };
}

/** How a process that died unasked died: V8's heap report, an allocation that failed, a signal, or an exit code. */
function deathOf(code: number | null, signal: NodeJS.Signals | null, stderr: string, heapMb: number, heapVariable: string, rssMb: number): WorkerFailure {
  if (/JavaScript heap out of memory|Reached heap limit/.test(stderr)) return { kind: 'process-heap', limitMb: heapMb, variable: heapVariable };
  if (/out of memory|Allocation failed|bad_alloc|Cannot allocate memory/i.test(stderr)) return { kind: 'rss', limitMb: rssMb };
  if (signal) return { kind: 'crash', detail: `killed by ${signal}` };
  return { kind: 'exit', code: code ?? 0 };
}

async function residentMb(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined || !CAN_READ_RSS) return undefined;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    // Gone already.
    return undefined;
  }
}

/**
 * How much lower than the runtime a worker process runs (Unix nice). Parsing is background work
 * and the event loop answers every request: on a busy machine (two cores, a parser on one, the
 * database on the other) the scheduler then gives the loop its turn first. Measured by the
 * hostile-content suite: the slowest /health answers came when the cores were oversubscribed.
 */
const WORKER_NICENESS = 10;

/** Lowers the worker's priority; a platform or container that refuses keeps the default. */
function lowerPriority(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    setPriority(child.pid, Math.min(19, getPriority(process.pid) + WORKER_NICENESS));
  } catch {
    // Not permitted here (some sandboxes): the worker runs at the runtime's priority.
  }
}

function spawnChild(entry: URL, limits: ProcessLimits, heapMb: number): ChildProcess {
  const child = spawnProcess(entry, limits, heapMb);
  lowerPriority(child);
  return child;
}

function spawnProcess(entry: URL, limits: ProcessLimits, heapMb: number): ChildProcess {
  const stackKb = limits.stackMb * 1024;
  const nodeArgs = [
    ...inheritedExecArgv((arg) => /^--(max-old-space-size|stack-size|inspect|debug)/.test(arg)),
    ...(entry.pathname.endsWith('.ts') ? ['--import', tsxLoader()] : []),
    `--max-old-space-size=${heapMb}`,
    // V8's bound, a little under the stack the process gets, so V8 throws before the OS faults.
    `--stack-size=${Math.max(256, (SHELL ? stackKb : Math.min(stackKb, osStackKb())) - 256)}`,
    fileURLToPath(entry),
  ];
  const options = { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] as const, serialization: 'advanced' as const, detached: true, env: process.env };
  if (!SHELL) return spawn(process.execPath, nodeArgs, { ...options, stdio: [...options.stdio] });
  const dataKb = (limits.rssMb + DATA_MARGIN_MB) * 1024;
  // `exec` keeps the pid: the pool watches and kills the node process itself.
  const script = `ulimit -d ${dataKb} 2>/dev/null; ulimit -s ${Math.max(8192, 2 * stackKb)} 2>/dev/null; exec "$@"`;
  return spawn(SHELL, ['-c', script, 'svc-worker', process.execPath, ...nodeArgs], { ...options, stdio: [...options.stdio] });
}

/** The soft stack limit this process's children inherit, in KB (8 MB when unknown). */
function osStackKb(): number {
  try {
    const line = /^Max stack size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return line && line !== 'unlimited' ? Math.floor(Number(line) / 1024) - 1024 : 8192;
  } catch {
    return 8192 - 1024;
  }
}
