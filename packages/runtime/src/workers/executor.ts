/**
 * @module workers/executor
 * One worker of the pool, as the pool sees it whatever it is: a thread (thread.ts) or a process
 * (process.ts). It takes one task message at a time and reports its readiness, its replies, and,
 * at most once, the failure that ended it unasked (memory, a crash, an exit).
 */
import type { TaskMessage, TaskReply } from './protocol.js';
import type { Isolation } from './task.js';

/** Why a worker ended without being asked to. */
export type WorkerFailure =
  /** A thread's V8 heap limit (`resourceLimits`). */
  | { kind: 'thread-heap'; limitMb: number; cause: Error }
  /** A process's V8 heap limit (`--max-old-space-size`); `variable` is the setting that raises it. */
  | { kind: 'process-heap'; limitMb: number; variable: string }
  /** A process's resident memory (or its data limit) went past `limitMb`: the pool killed it. */
  | { kind: 'rss'; limitMb: number }
  /** A thread's error event, or a process killed by a signal nobody in the pool sent. */
  | { kind: 'crash'; detail: string; cause?: Error }
  /** `process.exit` (a library's) in a thread or a process. */
  | { kind: 'exit'; code: number };

export interface ExecutorEvents {
  ready(): void;
  reply(reply: TaskReply): void;
  failed(failure: WorkerFailure): void;
}

export interface Executor {
  readonly kind: Isolation;
  /** A process's id (none for a thread). */
  readonly pid?: number | undefined;
  /** Sends one task; throws when the payload cannot be sent (a programming error of the caller). */
  send(message: TaskMessage, transfer: readonly ArrayBuffer[]): void;
  /**
   * Busy: it keeps the process alive and its limits are watched. Idle: it does not hold the
   * process open.
   */
  busy(yes: boolean): void;
  /**
   * False when it should not take another task (a process whose resident memory stayed high
   * after its last one): the pool retires it instead of letting it idle.
   */
  reusable?(): Promise<boolean>;
  /** Stops it now; resolves once it is gone. */
  terminate(): Promise<void>;
}
