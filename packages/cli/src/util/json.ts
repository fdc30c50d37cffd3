/**
 * JSON-shaped values: what the CLI prints with --json and what it reads from the runtime and
 * from client configs. Folders above this one share these instead of importing each other.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object (not an array, not null): the shape checked before reading any field. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a body as JSON, or undefined when it is not JSON. */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
