/**
 * @module providers/json-fields
 * Provider answers are untrusted JSON; these read fields without casting to `any`, and a
 * missing required field fails as MODEL_BAD_RESPONSE (via asModelError) with a clear message.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown, what: string): JsonRecord {
  if (!isRecord(value)) throw new Error(`expected an object for ${what}`);
  return value;
}

export function optionalRecord(value: unknown): JsonRecord | undefined {
  return isRecord(value) ? value : undefined;
}

export function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
