/**
 * @module knowledge/chunkers/registry
 * Chunkers by key, with the defaults `/knowledge/config` reports (the spec's table), and what
 * each needs from the knowledge base. As in agno, AgenticChunker, CodeChunker and
 * SemanticChunker take chunk_size but drop chunk_overlap, and RowChunker ignores both.
 */
import { badRequest } from '../../errors.js';
import { AgenticChunker } from './agentic.js';
import { CHUNKER_TYPES, DEFAULT_CHUNK_SIZE, type Chunker, type ChunkerType, type SizeOptions } from './chunker.js';
import { CodeChunker, DEFAULT_CODE_CHUNK_SIZE } from './code.js';
import { DocumentChunker } from './document.js';
import { FixedSizeChunker } from './fixed-size.js';
import { MarkdownChunker } from './markdown.js';
import { RecursiveChunker } from './recursive.js';
import { RowChunker } from './row.js';
import { SemanticChunker } from './semantic.js';

export interface ChunkerInfo {
  key: ChunkerType;
  name: string;
  description: string;
  metadata: Record<string, unknown>;
}

const SIZED = { chunk_size: DEFAULT_CHUNK_SIZE, chunk_overlap: 0 };

export const CHUNKERS: Readonly<Record<ChunkerType, ChunkerInfo>> = {
  AgenticChunker: { key: 'AgenticChunker', name: 'AgenticChunker', description: 'A language model chooses the break points, snapped to paragraphs or sentences', metadata: { chunk_size: DEFAULT_CHUNK_SIZE } },
  CodeChunker: { key: 'CodeChunker', name: 'CodeChunker', description: 'Splits source code at definitions along its syntax tree (tree-sitter)', metadata: { chunk_size: DEFAULT_CODE_CHUNK_SIZE } },
  FixedSizeChunker: { key: 'FixedSizeChunker', name: 'FixedSizeChunker', description: 'Fixed-size character windows, cut at whitespace', metadata: SIZED },
  RecursiveChunker: { key: 'RecursiveChunker', name: 'RecursiveChunker', description: 'Size-bounded windows ending at line or sentence breaks', metadata: SIZED },
  DocumentChunker: { key: 'DocumentChunker', name: 'DocumentChunker', description: 'Packs paragraphs, then sentences, up to the chunk size', metadata: SIZED },
  MarkdownChunker: { key: 'MarkdownChunker', name: 'MarkdownChunker', description: 'Splits markdown by headers, sections and paragraphs', metadata: SIZED },
  RowChunker: { key: 'RowChunker', name: 'RowChunker', description: 'One chunk per row of tabular content', metadata: {} },
  SemanticChunker: { key: 'SemanticChunker', name: 'SemanticChunker', description: 'Breaks where the topic changes, by embedding similarity of sentences', metadata: { chunk_size: DEFAULT_CHUNK_SIZE } },
};

/** What a chunker needs from the knowledge base, checked before any content is read. */
export const CHUNKER_NEEDS: Readonly<Partial<Record<ChunkerType, 'embedder' | 'model'>>> = {
  AgenticChunker: 'model',
  SemanticChunker: 'embedder',
};

export function isChunkerType(value: string): value is ChunkerType {
  return (CHUNKER_TYPES as readonly string[]).includes(value);
}

/** Builds a chunker by key with its defaults and the given size (and overlap, where it applies). */
export function createChunker(type: string, options: SizeOptions = {}): Chunker {
  if (!isChunkerType(type)) {
    throw badRequest(`Unknown chunker "${type}"; available: ${CHUNKER_TYPES.join(', ')}`);
  }
  const size = options.chunkSize !== undefined ? { chunkSize: options.chunkSize } : {};
  switch (type) {
    case 'AgenticChunker':
      return new AgenticChunker(size);
    case 'CodeChunker':
      return new CodeChunker(size);
    case 'SemanticChunker':
      return new SemanticChunker(size);
    case 'FixedSizeChunker':
      return new FixedSizeChunker(options);
    case 'RecursiveChunker':
      return new RecursiveChunker(options);
    case 'DocumentChunker':
      return new DocumentChunker(options);
    case 'MarkdownChunker':
      return new MarkdownChunker(options);
    case 'RowChunker':
      return new RowChunker();
  }
}
