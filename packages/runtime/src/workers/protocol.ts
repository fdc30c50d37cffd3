/**
 * @module workers/protocol
 * What the pool and its workers (threads and processes alike) say to each other: a task
 * message, the worker's `ready`, and one reply per task with its value or its error. Errors
 * travel as plain data: a RuntimeError keeps its code, anything else its name and message.
 */
import { ERROR_CODES, RuntimeError, type ErrorCode } from '../errors.js';

export { isStackOverflow } from '../errors.js';
import type { WorkerTask } from './task.js';

/** What the worker sends back for one task. */
export type TaskReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/** What a worker posts once it has loaded and listens for tasks. */
export interface ReadyMessage {
  ready: true;
}

export interface SerializedError {
  /** A RuntimeError's code, when it was one. */
  code?: string;
  name: string;
  message: string;
}

export interface TaskMessage {
  id: number;
  /** What to run: a WorkerTask for the default entry; a custom entry's own form otherwise. */
  task: WorkerTask | string;
  payload: unknown;
}

/** Rebuilds a worker's error: a RuntimeError keeps its code, so the HTTP and job layers map it as usual. */
export function reviveError(error: SerializedError): Error {
  if (error.code && Object.hasOwn(ERROR_CODES, error.code)) return new RuntimeError(error.code as ErrorCode, error.message);
  const revived = new Error(error.message);
  revived.name = error.name;
  return revived;
}

/** What a worker sends for an error it caught. */
export function serializeError(error: unknown): SerializedError {
  if (RuntimeError.isInstance(error)) return { code: error.code, name: 'RuntimeError', message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** An ArrayBuffer the process could not get (its data limit, or the machine's memory, ran out). */
export function isAllocationFailure(error: { name?: unknown; message?: unknown } | null | undefined): boolean {
  return error?.name === 'RangeError' && typeof error.message === 'string' && /Array buffer allocation failed|Buffer allocation failed/.test(error.message);
}
