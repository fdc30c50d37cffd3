/**
 * @module knowledge/workers/chunking
 * The text-only chunkers (fixed-size, recursive, document, markdown, row and code) are pure
 * functions of the document and their settings, so a large document is chunked in the worker
 * pool instead of on the event loop: a 10 MB text split into 100k chunks takes seconds of CPU.
 * The worker rebuilds the same chunker from its settings and runs the same code, so the chunks
 * are exactly those the main thread would make (see chunking.test.ts).
 *
 * Small documents stay inline: below `OFFLOAD_MIN_CHARS` chunking takes about a millisecond,
 * less than the round trip to a worker.
 */
import type { ChunkContext, Chunker } from '../chunkers/chunker.js';
import { CodeChunker } from '../chunkers/code.js';
import { DocumentChunker } from '../chunkers/document.js';
import { FixedSizeChunker } from '../chunkers/fixed-size.js';
import { MarkdownChunker } from '../chunkers/markdown.js';
import { RecursiveChunker } from '../chunkers/recursive.js';
import { RowChunker } from '../chunkers/row.js';
import type { Chunk, Document } from '../types.js';
import type { Offload } from './offload.js';
import type { WorkerPool } from './pool.js';

export const OFFLOAD_MIN_CHARS = 32 * 1024;

/** A pure chunker as plain data: its kind and the settings its constructor takes. */
export type ChunkerSpec =
  | { type: 'FixedSizeChunker' | 'RecursiveChunker' | 'DocumentChunker'; chunkSize: number; overlap: number }
  | { type: 'MarkdownChunker'; chunkSize: number; overlap: number; headingLevel: number }
  | { type: 'RowChunker'; skipHeader: boolean; cleanRows: boolean }
  | { type: 'CodeChunker'; chunkSize: number; language: string | undefined; maxParseChars: number };

/**
 * The spec of a chunker that can run in a worker, or undefined (semantic and agentic chunkers
 * call the embedder or model, and a subclass may behave differently from its base).
 */
export function chunkerSpec(chunker: Chunker): ChunkerSpec | undefined {
  const proto = Object.getPrototypeOf(chunker) as unknown;
  if (proto === FixedSizeChunker.prototype || proto === RecursiveChunker.prototype || proto === DocumentChunker.prototype) {
    const c = chunker as FixedSizeChunker;
    return { type: c.type as 'FixedSizeChunker', chunkSize: c.chunkSize, overlap: c.overlap };
  }
  if (proto === MarkdownChunker.prototype) {
    const c = chunker as MarkdownChunker;
    return { type: 'MarkdownChunker', chunkSize: c.chunkSize, overlap: c.overlap, headingLevel: c.headingLevel };
  }
  if (proto === RowChunker.prototype) {
    const c = chunker as RowChunker;
    return { type: 'RowChunker', skipHeader: c.skipHeader, cleanRows: c.cleanRows };
  }
  if (proto === CodeChunker.prototype) {
    const c = chunker as CodeChunker;
    return { type: 'CodeChunker', chunkSize: c.chunkSize, language: c.language, maxParseChars: c.maxParseChars };
  }
  return undefined;
}

export function chunkerFromSpec(spec: ChunkerSpec): Chunker {
  switch (spec.type) {
    case 'FixedSizeChunker':
      return new FixedSizeChunker(spec);
    case 'RecursiveChunker':
      return new RecursiveChunker(spec);
    case 'DocumentChunker':
      return new DocumentChunker(spec);
    case 'MarkdownChunker':
      return new MarkdownChunker({ chunkSize: spec.chunkSize, overlap: spec.overlap, splitOnHeadings: spec.headingLevel === 0 ? false : spec.headingLevel });
    case 'RowChunker':
      return new RowChunker(spec);
    case 'CodeChunker':
      return new CodeChunker({ chunkSize: spec.chunkSize, maxParseChars: spec.maxParseChars, ...(spec.language !== undefined ? { language: spec.language } : {}) });
  }
}

export interface ChunkPayload {
  spec: ChunkerSpec;
  doc: Document;
  sourceName: string | undefined;
}

/** The `chunk` task: the chunker rebuilt from its spec, run in this worker. */
export async function chunkTask(payload: ChunkPayload): Promise<Chunk[]> {
  return chunkerFromSpec(payload.spec).chunk(payload.doc, { sourceName: payload.sourceName });
}

/** Chunks `doc` in a worker of `pool` with the chunker `spec` describes. */
export function chunkInWorker(pool: WorkerPool, spec: ChunkerSpec, doc: Document, context: ChunkContext = {}): Promise<Chunk[]> {
  const payload: ChunkPayload = { spec, doc, sourceName: context.sourceName };
  return pool.run<Chunk[]>('chunk', payload, { signal: context.signal, label: `${spec.type}: "${doc.name ?? doc.id ?? 'content'}"` });
}

/**
 * Chunks `doc` where it is cheapest for the event loop: in a worker when the chunker is a pure
 * one, a pool is configured and the document is large; otherwise with the chunker itself.
 */
export function chunkOffloaded(offload: Offload, chunker: Chunker, doc: Document, context: ChunkContext = {}): Chunk[] | Promise<Chunk[]> {
  if (offload !== 'inline' && doc.content.length >= OFFLOAD_MIN_CHARS) {
    const spec = chunkerSpec(chunker);
    if (spec) return chunkInWorker(offload, spec, doc, context);
  }
  return chunker.chunk(doc, context);
}
