/**
 * @module knowledge/chunkers/list
 * The one list of chunking strategies. A strategy is its file's `defineChunker(...)` plus one
 * line here; the keys (CHUNKER_TYPES, whose order is this list's), `/knowledge/config`'s table,
 * what each needs, creation by key (registry.ts) and the worker's rebuild (offloaded.ts) all
 * follow from it.
 */
import { AGENTIC_CHUNKER } from './agentic.js';
import type { ChunkerOf } from './chunker.js';
import { CODE_CHUNKER } from './code.js';
import { DOCUMENT_CHUNKER } from './document.js';
import { FIXED_SIZE_CHUNKER } from './fixed-size.js';
import { MARKDOWN_CHUNKER } from './markdown.js';
import { RECURSIVE_CHUNKER } from './recursive.js';
import { ROW_CHUNKER } from './row.js';
import { SEMANTIC_CHUNKER } from './semantic.js';

export const CHUNKER_LIST = [
  AGENTIC_CHUNKER,
  CODE_CHUNKER,
  DOCUMENT_CHUNKER,
  FIXED_SIZE_CHUNKER,
  MARKDOWN_CHUNKER,
  RECURSIVE_CHUNKER,
  ROW_CHUNKER,
  SEMANTIC_CHUNKER,
] as const;

type Keys<T extends readonly unknown[]> = { readonly [I in keyof T]: T[I] extends { key: infer K } ? K : never };

/** The strategies' keys, in the list's order. */
export const CHUNKER_TYPES = CHUNKER_LIST.map((definition) => definition.key) as unknown as Keys<typeof CHUNKER_LIST>;
export type ChunkerType = (typeof CHUNKER_TYPES)[number];

/** What the Knowledge chunks with: a listed strategy, or an insert's own object under one of their keys. */
export type Chunker = ChunkerOf<ChunkerType>;
