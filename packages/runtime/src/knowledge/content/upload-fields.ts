/**
 * @module knowledge/content/upload-fields
 * How an upload's text fields are read, whichever way they arrived (a form sends JSON as text):
 * metadata, a URL or a JSON array of them, a source reader's options.
 */
import { badRequest } from '../../errors.js';
import type { Metadata } from '../types.js';

/** A bound on the records (and background fetches) one request can start. */
export const MAX_URLS = 20;

/**
 * The `url` field: one URL, or a JSON array of them. Each is checked by the reader that will
 * read it (an http(s) URL for most, an s3:// location for the bucket reader).
 */
export function parseUrls(raw: string): string[] {
  const text = raw.trim();
  let urls: unknown = [text];
  if (text.startsWith('[')) {
    try {
      urls = JSON.parse(text);
    } catch (cause) {
      throw badRequest('url must be a URL or a JSON array of URLs', cause);
    }
  }
  if (!Array.isArray(urls) || urls.length === 0 || !urls.every((u): u is string => typeof u === 'string')) {
    throw badRequest('url must be a URL or a non-empty JSON array of URLs');
  }
  if (urls.length > MAX_URLS) throw badRequest(`url lists ${urls.length} URLs; send at most ${MAX_URLS} per request`);
  return urls.map((u) => u.trim());
}

/** `reader_options`: a JSON object (or its text, from a form). */
export function parseReaderOptions(raw: string | Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === '') return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (cause) {
      throw badRequest('reader_options must be a JSON object', cause);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('reader_options must be a JSON object');
  return value as Record<string, unknown>;
}

/** agno's rule: metadata that is not a JSON object is kept, under `value`. */
export function parseMetadata(raw: string | Record<string, unknown> | undefined): Metadata | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw === 'object') return raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Metadata;
  } catch {
    // Not JSON: kept as text below.
  }
  return { value: raw };
}
