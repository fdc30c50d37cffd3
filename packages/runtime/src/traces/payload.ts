/**
 * @module traces/payload
 * What a span keeps of a payload: credentials cut out (net/redact's one helper) and every text
 * field bounded, so one huge tool result or conversation cannot bloat the trace tables. A cut
 * field keeps its head and the span notes its original size under `truncated`.
 */
import { redactCredentials } from '../net/redact.js';

/** The most a single attribute field keeps, in UTF-8 bytes. */
export const FIELD_LIMIT_BYTES = 16 * 1024;

/**
 * The attributes as stored: redacted, each string field (top level or the JSON text of an
 * object field) at most `limit` bytes, with `truncated: { field: original bytes }` when cut.
 */
export function boundAttributes(attributes: Record<string, unknown>, limit = FIELD_LIMIT_BYTES): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const truncated: Record<string, number> = {};
  for (const [key, raw] of Object.entries(attributes)) {
    if (raw === undefined) continue;
    const value = redactCredentials(raw);
    if (typeof value === 'string') {
      const cut = truncateUtf8(value, limit);
      out[key] = cut.text;
      if (cut.bytes !== undefined) truncated[key] = cut.bytes;
    } else if (typeof value === 'object' && value !== null) {
      // Objects are measured as the JSON they are stored as; an oversized one is kept as cut text.
      const json = JSON.stringify(value);
      const cut = truncateUtf8(json, limit);
      out[key] = cut.bytes === undefined ? value : cut.text;
      if (cut.bytes !== undefined) truncated[key] = cut.bytes;
    } else {
      out[key] = value;
    }
  }
  if (Object.keys(truncated).length > 0) out.truncated = truncated;
  return out;
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
