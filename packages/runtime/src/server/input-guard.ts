/**
 * @module server/input-guard
 * One rule for every string a request brings (path parameters, query values, JSON and form
 * fields, object keys): no NUL character (PostgreSQL cannot store one, SQLite would; both
 * stores must answer alike), valid Unicode, path parameters of a sane length, and JSON nested
 * no deeper than a limit. A violation is a 422 that names the place, checked before
 * validation and before anything reaches a store. Attached per route, only to routes that
 * take input, so routes without any keep their fast path.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { RuntimeError } from '../errors.js';
import type { AppEnv } from './context.js';
import { readMultipart } from './multipart.js';

/** Ids in paths (agents, sessions, runs, content...) are short; anything longer is not one. */
export const MAX_PATH_PARAM = 256;
/** Real request bodies nest a few levels; 10,000 levels exhaust the stack of JSON.stringify. */
export const MAX_DEPTH = 32;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function refuse(detail: string): never {
  throw new RuntimeError('VALIDATION_ERROR', detail);
}

/** The problem with a string, or undefined. */
export function stringProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'contains a NUL character, which is not allowed in text';
  if (LONE_SURROGATE.test(value)) return 'is not valid Unicode text';
  return undefined;
}

function checkString(value: string, where: string): void {
  const problem = stringProblem(value);
  if (problem) refuse(`${where} ${problem}`);
}

/** Walks a parsed body iteratively-bounded: never deeper than MAX_DEPTH, so it cannot overflow. */
export function checkValue(value: unknown, where: string, depth = 0): void {
  if (typeof value === 'string') return checkString(value, where);
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_DEPTH) refuse(`${where} is nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) checkValue(value[i], `${where}[${i}]`, depth + 1);
    return;
  }
  if (value instanceof File || value instanceof Blob) return;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    checkString(key, `${where}: a key`);
    checkValue(item, `${where}.${key.slice(0, 40)}`, depth + 1);
  }
}

/**
 * The same rules for JSON sent as text in a field (a form's `metadata`, or a JSON body's
 * `metadata` given as a string), which the body's own check sees as one string. Text that is
 * not JSON is left to the field's reader.
 */
export function checkJsonText(text: string, where: string): void {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return;
  let value: unknown;
  try {
    // JSON.parse builds 100,000 levels without recursing; walking them afterwards would not.
    value = JSON.parse(text);
  } catch {
    return;
  }
  checkValue(value, where);
}

async function checkBody(c: Context<AppEnv>): Promise<void> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      // Malformed JSON is the validator's to report, with its usual 400.
      return;
    }
    // Hono caches the body's text but parses it again on every json() call, so the validator
    // after this guard parsed it a second time (~14 ms for a 10 MB upload, on the event loop).
    // It gets this parse instead; neither changes the value.
    const parsed = Promise.resolve(body);
    Object.defineProperty(c.req, 'json', { value: () => parsed, configurable: true });
    checkValue(body, 'body');
  } else if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
    let form: Record<string, unknown>;
    try {
      if (type.startsWith('multipart/form-data')) {
        // Parsed as it streams in (see multipart.ts); the validator and parseBody read this
        // FormData from Hono's body cache instead of parsing the body again.
        const parsed = await readMultipart(c.req.raw.body, c.req.header('content-type')!);
        // Hono keeps promises in this cache (its type says values); other readers call .then on it.
        c.req.bodyCache.formData = Promise.resolve(parsed) as unknown as FormData;
      }
      form = await c.req.parseBody({ all: true });
    } catch (cause) {
      // Otherwise the validator meets the same parse error and it surfaces as a 500.
      throw new RuntimeError('BAD_REQUEST', 'The form body could not be read: it is not well-formed multipart/form-data or URL-encoded data', { cause });
    }
    checkValue(form, 'form');
  }
}

export function inputGuard(takesBody: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    for (const [name, value] of Object.entries(c.req.param() as Record<string, string>)) {
      if (value.length > MAX_PATH_PARAM) refuse(`Path parameter ${name} is longer than ${MAX_PATH_PARAM} characters`);
      checkString(value, `Path parameter ${name}`);
    }
    for (const [name, values] of Object.entries(c.req.queries())) {
      checkString(name, 'A query parameter name');
      for (const value of values) checkString(value, `Query parameter ${name.slice(0, 40)}`);
    }
    if (takesBody) await checkBody(c);
    await next();
  };
}
