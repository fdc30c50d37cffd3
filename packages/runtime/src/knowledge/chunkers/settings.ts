/**
 * @module knowledge/chunkers/settings
 * What a chunker instance was built with, as a content record shows it: its plain settings in
 * snake_case (`chunk_size`, `chunk_overlap`, `similarity_threshold`, `language`...), read from
 * the instance rather than from the upload, so defaults the upload left out are shown too and
 * a chunker added later (or an SDK caller's own) needs no entry anywhere.
 */
import type { ChunkerOf } from './chunker.js';

/** A custom prompt can be pages long; a record shows settings, not documents. */
const MAX_STRING = 200;

/** Upload and `/knowledge/config` name the overlap `chunk_overlap`; the classes call it `overlap`. */
const RENAMED: Readonly<Record<string, string>> = { overlap: 'chunk_overlap' };

export function chunkerSettings(chunker: ChunkerOf): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(chunker)) {
    if (key === 'type') continue;
    // Models, embedders, parsers and caches are collaborators, not settings.
    const plain = typeof value === 'number' ? Number.isFinite(value) : typeof value === 'boolean' || (typeof value === 'string' && value.length <= MAX_STRING);
    if (plain) settings[RENAMED[key] ?? snakeCase(key)] = value;
  }
  return settings;
}

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The settings of the chunkers one content was chunked with: one chunker's own, or, when its
 * parts were read by readers with different default chunkers, each chunker's by its key.
 */
export function contentChunkerSettings(chunkers: readonly ChunkerOf[]): Record<string, unknown> | undefined {
  const byType = new Map(chunkers.map((c) => [c.type, c]));
  if (byType.size === 0) return undefined;
  if (byType.size === 1) return chunkerSettings(chunkers[0]!);
  return Object.fromEntries([...byType].map(([type, c]) => [type, chunkerSettings(c)]));
}
