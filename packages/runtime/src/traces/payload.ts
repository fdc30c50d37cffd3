/**
 * @module traces/payload
 * What a span keeps of a payload: credentials cut out (net/redact's one helper) and every text
 * field bounded, so one huge tool result or conversation cannot bloat the trace tables. A cut
 * field keeps its head and the span notes its original size under `truncated`.
 */
import { redactCredentials } from '../net/redact.js';

/** The most a single attribute field keeps, in UTF-8 bytes. */
export const FIELD_LIMIT_BYTES = 16 * 1024;

interface BoundField {
  /** The field as kept: the value itself, or its cut text. */
  value: unknown;
  /** Its JSON, when it had to be made to measure the field (objects): made once, used to store it. */
  json?: string;
  /** The original size in bytes, when cut. */
  bytes?: number;
}

function boundField(raw: unknown, limit: number): BoundField {
  const value = redactCredentials(raw);
  if (typeof value === 'string') {
    const cut = truncateUtf8(value, limit);
    return cut.bytes === undefined ? { value: cut.text } : { value: cut.text, bytes: cut.bytes };
  }
  if (typeof value === 'object' && value !== null) {
    // Objects are measured as the JSON they are stored as; an oversized one is kept as cut text.
    const json = JSON.stringify(value);
    const cut = truncateUtf8(json, limit);
    return cut.bytes === undefined ? { value, json } : { value: cut.text, bytes: cut.bytes };
  }
  return { value };
}

/**
 * The attributes as kept: redacted, each string field (top level or the JSON text of an
 * object field) at most `limit` bytes, with `truncated: { field: original bytes }` when cut.
 */
export function boundAttributes(attributes: Record<string, unknown>, limit = FIELD_LIMIT_BYTES): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const truncated: Record<string, number> = {};
  for (const [key, raw] of Object.entries(attributes)) {
    if (raw === undefined) continue;
    const field = boundField(raw, limit);
    out[key] = field.value;
    if (field.bytes !== undefined) truncated[key] = field.bytes;
  }
  if (Object.keys(truncated).length > 0) out.truncated = truncated;
  return out;
}

/**
 * `boundAttributes(attributes)` as the JSON text the trace tables store, each object field
 * serialised once: measuring it already made its JSON, which a JSON.stringify of the whole
 * would make a second time for every span.
 */
export function serializeAttributes(attributes: Record<string, unknown>, limit = FIELD_LIMIT_BYTES): string {
  const parts: string[] = [];
  const truncated: Record<string, number> = {};
  for (const [key, raw] of Object.entries(attributes)) {
    if (raw === undefined) continue;
    const field = boundField(raw, limit);
    if (field.bytes !== undefined) truncated[key] = field.bytes;
    parts.push(`${JSON.stringify(key)}:${field.json ?? JSON.stringify(field.value) ?? 'null'}`);
  }
  if (Object.keys(truncated).length === 0) return `{${parts.join(',')}}`;
  const kept = 'truncated' in attributes ? parts.filter((p) => !p.startsWith('"truncated":')) : parts;
  return `{${[...kept, `"truncated":${JSON.stringify(truncated)}`].join(',')}}`;
}

/** `text` cut to at most `limit` UTF-8 bytes (on a character boundary); `bytes` is its size when cut. */
export function truncateUtf8(text: string, limit: number): { text: string; bytes?: number } {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short texts need no measuring.
  if (text.length * 3 <= limit) return { text };
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= limit) return { text };
  let cut = Buffer.from(text, 'utf8').subarray(0, limit).toString('utf8');
  // A character split at the limit decodes to U+FFFD; drop it rather than store a broken one.
  if (cut.endsWith('\uFFFD') && !text.startsWith(cut)) cut = cut.slice(0, -1);
  return { text: cut, bytes };
}
