/**
 * @module knowledge/chunkers/registry
 * The list's strategies by key: the table `/knowledge/config` reports, what each needs from the
 * knowledge base, and creation by key. Nothing here names a strategy; see list.ts.
 */
import { badRequest } from '../../errors.js';
import type { ChunkerNeed, SizeOptions } from './chunker.js';
import { CHUNKER_LIST, CHUNKER_TYPES, type Chunker, type ChunkerType } from './list.js';

export interface ChunkerInfo {
  key: ChunkerType;
  name: string;
  description: string;
  metadata: Record<string, unknown>;
}

const BY_KEY = new Map<string, (typeof CHUNKER_LIST)[number]>(CHUNKER_LIST.map((definition) => [definition.key, definition]));

export const CHUNKERS: Readonly<Record<ChunkerType, ChunkerInfo>> = Object.fromEntries(
  CHUNKER_LIST.map(({ key, name, description, metadata }) => [key, { key, name, description, metadata }]),
) as Record<ChunkerType, ChunkerInfo>;

/** What a chunker needs from the knowledge base, checked before any content is read. */
export const CHUNKER_NEEDS: Readonly<Partial<Record<ChunkerType, ChunkerNeed>>> = Object.fromEntries(
  CHUNKER_LIST.flatMap(({ key, needs }) => (needs ? [[key, needs]] : [])),
);

export function isChunkerType(value: string): value is ChunkerType {
  return BY_KEY.has(value);
}

/** Builds a chunker by key with its defaults and the given size (and overlap, where it applies). */
export function createChunker(type: string, options: SizeOptions = {}): Chunker {
  const definition = BY_KEY.get(type);
  if (!definition) {
    throw badRequest(`Unknown chunker "${type}"; available: ${CHUNKER_TYPES.join(', ')}`);
  }
  return definition.create(options);
}
