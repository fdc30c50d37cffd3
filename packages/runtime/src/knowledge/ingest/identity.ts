/**
 * @module knowledge/ingest/identity
 * Content ids: stable digests of what builds a content, formatted as UUIDs (version 5, variant
 * 10) like agno's, so the same content uploaded again is the same content.
 */
import { createHash } from 'node:crypto';
import { SLICE_MS, TimeSlicer } from '../../util/time-slicer.js';
import { utf8Slices } from '../../util/utf8-slices.js';
import type { SourceLocation } from '../options.js';
import type { SourceReader } from '../readers/sources/source-reader.js';
import type { Metadata } from '../types.js';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * `sha256(JSON.stringify(documents.map((d) => [d.id ?? null, d.content])))`, the digest of what
 * a source reader read when it names none, hashed a document at a time and yielding to the
 * event loop between slices: the same bytes, so the same digest, without a string of all of it.
 */
export async function documentsDigest(documents: readonly { id?: string | undefined; content: string }[], signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256').update('[');
  const slicer = new TimeSlicer(SLICE_MS, signal);
  for (let i = 0; i < documents.length; i++) {
    if (i > 0) hash.update(',');
    for (const piece of utf8Slices(JSON.stringify([documents[i]!.id ?? null, documents[i]!.content]))) {
      await slicer.pause();
      hash.update(piece);
    }
  }
  return hash.update(']').digest('hex');
}

/** A SHA-256 (hex) as a UUID: version 5, variant 10. */
export function uuidFromHash(hex: string): string {
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** JSON with object keys sorted, so equal options give equal digests. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).toSorted(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The id the SDK's `insert` stores content under: per (identity, metadata, owner, tenant). The
 * owner and tenant are added only when there is one, so shared content keeps its old ids.
 */
export function contentIdFor(identity: string, metadata: Metadata, owner: string | undefined, tenant?: string): string {
  const meta = JSON.stringify(Object.fromEntries(Object.entries(metadata).toSorted(([a], [b]) => a.localeCompare(b))));
  return uuidFromHash(sha256(`${identity}:${meta}${owner !== undefined ? `\nowner:${owner}` : ''}${tenant !== undefined ? `\ntenant:${tenant}` : ''}`));
}

/** The identity of content a source reader reads: a plain URL keeps the identity URL content always had. */
export function sourceIdentity(reader: SourceReader, location: SourceLocation, options: Record<string, unknown> | undefined): string {
  const where = 'url' in location ? `url:${location.url}` : `topic:${location.topic}`;
  const extra = options && Object.keys(options).length > 0 ? `:${stableJson(options)}` : '';
  return reader.id === 'url' && !extra ? where : `${reader.id}:${where}${extra}`;
}
