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
 */
import { createHash } from 'node:crypto';
import type { Model } from '../../model/model.js';
import type { Embedder } from '../embedders/embedder.js';
import { unprocessable } from '../../errors.js';
import type { Chunk, Document, Metadata } from '../types.js';

export const CHUNKER_TYPES = ['AgenticChunker', 'CodeChunker', 'DocumentChunker', 'FixedSizeChunker', 'MarkdownChunker', 'RecursiveChunker', 'RowChunker', 'SemanticChunker'] as const;
export type ChunkerType = (typeof CHUNKER_TYPES)[number];

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

export interface Chunker {
  readonly type: ChunkerType;
  chunk(doc: Document, context?: ChunkContext): Chunk[] | Promise<Chunk[]>;
}

/** Size and overlap in characters, as every size-based strategy takes them. */
export interface SizeOptions {
  chunkSize?: number;
  overlap?: number;
}

export const DEFAULT_CHUNK_SIZE = 5000;

export function sizeOptions(type: ChunkerType, options: SizeOptions): { chunkSize: number; overlap: number } {
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
