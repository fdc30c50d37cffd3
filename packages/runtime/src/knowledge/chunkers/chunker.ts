/**
 * @module knowledge/chunkers/chunker
 * A chunker splits one Document into Chunks. Shared rules (after agno): chunk ids are
 * `{doc.id or doc.name}_{n}` (1-based), else `chunk_{md5 prefix}_{n}`; each chunk copies the
 * document's metadata and adds `chunk` and `chunk_size`. One deliberate difference: a short
 * document still becomes one chunk with that metadata, so every stored row has the same shape.
 *
 * `chunk` may answer synchronously (the text-only strategies) or with a promise (strategies that
 * load a grammar, or call the knowledge base's embedder or model). The Knowledge always awaits
 * it and hands it a ChunkContext; the text-only strategies ignore the context.
 *
 * Each strategy file declares itself with `defineChunker` next to its class, and list.ts names
 * the declarations: keys, `/knowledge/config`'s table, needs, creation by key and the worker's
 * rebuild all follow from that list. This module knows no strategy, so none imports the list.
 */
import { createHash } from 'node:crypto';
import type { Model } from '../../model/model.js';
import type { Embedder } from '../../model/embedder.js';
import { unprocessable } from '../../errors.js';
import type { Chunk, Document, Metadata } from '../types.js';

/** What the Knowledge hands a chunker besides the document. Every field is optional. */
export interface ChunkContext {
  /** The knowledge base's embedder (SemanticChunker compares sentences with it). */
  embedder?: Embedder | undefined;
  /** The knowledge base's model, else the runtime's default (AgenticChunker asks it for breaks). */
  model?: Model | undefined;
  /** The file name the content was read as (`app.py`); CodeChunker picks the language from it. */
  sourceName?: string | undefined;
  /** Cancels the embedder or model calls a chunker makes. */
  signal?: AbortSignal | undefined;
}

/**
 * What a strategy implements, `K` being its key. The public `Chunker` (list.ts) is this with `K`
 * the listed keys; it cannot be declared here, where the list is not known.
 */
export interface ChunkerOf<K extends string = string> {
  readonly type: K;
  chunk(doc: Document, context?: ChunkContext): Chunk[] | Promise<Chunk[]>;
}

/** What a knowledge base must have for a strategy, checked before any content is read. */
export type ChunkerNeed = 'embedder' | 'model';

/** A strategy as its file declares it to the list (see defineChunker). */
export interface ChunkerDefinition<K extends string = string, C extends ChunkerOf<K> = ChunkerOf<K>, S extends object = object> {
  readonly key: K;
  readonly name: string;
  readonly description: string;
  /** The defaults `/knowledge/config` reports (the spec's table). */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly needs?: ChunkerNeed | undefined;
  /** Builds the chunker an insert names, from its chunk_size and chunk_overlap where given. */
  create(options: SizeOptions): C;
  /** Present only for a pure function of the document and its settings: see ChunkerOffload. */
  readonly offload?: ChunkerOffload<C, S> | undefined;
}

/**
 * How a worker rebuilds a chunker that is a pure function of the document and its settings
 * (offloaded.ts): its settings as plain data, and the chunker built back from them. Only
 * instances of exactly `class` go to a worker, since a subclass may behave differently.
 */
export interface ChunkerOffload<C, S extends object> {
  readonly class: abstract new (...args: never[]) => C;
  settings(chunker: C): S;
  rebuild(settings: S): C;
}

/**
 * Declares a strategy for list.ts; `name` defaults to the key. The created chunker's `type` must
 * be the key, which the types check.
 */
export function defineChunker<const K extends string, C extends ChunkerOf<K>, S extends object = never>(
  definition: Omit<ChunkerDefinition<K, C, S>, 'name'> & { readonly name?: string },
): ChunkerDefinition<K, C, S> {
  return { ...definition, name: definition.name ?? definition.key };
}

/** Size and overlap in characters, as every size-based strategy takes them. */
export interface SizeOptions {
  chunkSize?: number;
  overlap?: number;
}

export const DEFAULT_CHUNK_SIZE = 5000;

/** The `/knowledge/config` defaults of a strategy that takes both chunk_size and chunk_overlap. */
export const SIZED_DEFAULTS: Readonly<Record<string, unknown>> = { chunk_size: DEFAULT_CHUNK_SIZE, chunk_overlap: 0 };

export function sizeOptions(type: string, options: SizeOptions): { chunkSize: number; overlap: number } {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const overlap = options.overlap ?? 0;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw unprocessable(`${type}: chunk_size must be a positive integer (got ${chunkSize})`);
  if (!Number.isInteger(overlap) || overlap < 0) throw unprocessable(`${type}: chunk_overlap must be a non-negative integer (got ${overlap})`);
  // An overlap as large as the chunk would never advance.
  if (overlap >= chunkSize) throw unprocessable(`${type}: chunk_overlap (${overlap}) must be smaller than chunk_size (${chunkSize})`);
  return { chunkSize, overlap };
}

/** Flattens every whitespace run (newlines included) to one space, as agno's clean_text does. */
export function cleanText(text: string): string {
  return text.replace(/\s+/g, ' ');
}

export function chunkId(doc: Document, n: number, content: string, prefix = ''): string {
  const base = doc.id ?? doc.name;
  if (base) return `${base}_${prefix}${n}`;
  return `chunk_${createHash('md5').update(content).digest('hex').slice(0, 12)}_${prefix}${n}`;
}

/** A chunk's text with metadata of its own (a line range, a language...). */
export interface Piece {
  content: string;
  meta_data: Metadata;
}

/**
 * Builds the chunks of `doc` from its pieces, numbering from 1 and skipping blank pieces. A
 * piece's own metadata goes after the document's; `chunk` and `chunk_size` come last.
 */
export function toChunks(doc: Document, pieces: readonly (string | Piece)[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const piece of pieces) {
    const { content, meta_data } = typeof piece === 'string' ? { content: piece, meta_data: {} } : piece;
    if (content.trim().length === 0) continue;
    const n = chunks.length + 1;
    chunks.push({
      content,
      name: doc.name,
      id: chunkId(doc, n, content),
      meta_data: { ...doc.meta_data, ...meta_data, chunk: n, chunk_size: content.length },
    });
  }
  return chunks;
}

/** Prepends the tail of each previous chunk (agno's overlap post-pass for paragraph packers). */
export function withOverlap(pieces: string[], overlap: number): string[] {
  if (overlap === 0) return pieces;
  return pieces.map((piece, i) => (i === 0 ? piece : `${pieces[i - 1]!.slice(-overlap)}${piece}`));
}

/**
 * Greedy packing: adds parts to the current chunk while its size, separators included, stays
 * within `size`; a part that alone exceeds `size` is passed to `split`. (agno leaves the
 * separators out of the count, so its chunks can exceed chunk_size; here it is a maximum.)
 */
export function pack(parts: readonly string[], size: number, joiner: string, split: (part: string) => string[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let length = 0;
  const flush = () => {
    if (current.length > 0) out.push(current.join(joiner));
    current = [];
    length = 0;
  };
  for (const part of parts) {
    if (part.length > size) {
      flush();
      append(out, split(part));
      continue;
    }
    const separator = current.length > 0 ? joiner.length : 0;
    if (length + separator + part.length > size) flush();
    length += (current.length > 0 ? joiner.length : 0) + part.length;
    current.push(part);
  }
  flush();
  return out;
}

/**
 * Appends `items` to `target`. `target.push(...items)` passes every item as an argument and
 * overflows the stack at around 100k of them (a 10 MB text in 100-character chunks).
 */
export function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** Last-resort split on word boundaries, hard-cutting single words longer than `size`. */
export function splitWords(text: string, size: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const hard = words.flatMap((w) => (w.length <= size ? [w] : (w.match(new RegExp(`.{1,${size}}`, 'gs')) ?? [])));
  const out: string[] = [];
  let current = '';
  for (const word of hard) {
    if (current && current.length + 1 + word.length > size) {
      out.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  if (current) out.push(current);
  return out;
}
