/**
 * @module knowledge/ingest/pipeline
 * The one-way part of an insert, after its reader and chunker are resolved: chunk what was read
 * (large documents in the worker pool; paged sources as one text, see paged.ts), give repeated
 * chunk ids a suffix, embed, and store under the content id.
 */
import { unprocessable } from '../../errors.js';
import type { Model } from '../../model/model.js';
import { SLICE_MS, TimeSlicer, mapSliced } from '../../util/time-slicer.js';
import type { Offload } from '../../workers/offload.js';
import { append, type ChunkContext } from '../chunkers/chunker.js';
import type { Chunker } from '../chunkers/list.js';
import { chunkOffloaded } from '../chunkers/offloaded.js';
import type { Embedder } from '../../model/embedder.js';
import type { Reader } from '../readers/reader.js';
import type { Chunk, Document, Metadata } from '../types.js';
import type { StoredChunk, VectorStore } from '../vector-stores/vector-store.js';
import { joinParts, stampParts } from './paged.js';

/** What the pipeline needs of its knowledge base. */
export interface PipelineHost {
  readonly id: string;
  readonly store: VectorStore;
  readonly embedder: Embedder | undefined;
  /** The model chunkers may call (set once the hosting runtime is known). */
  chunkModel(): Model | undefined;
  /** Where large documents are chunked. */
  offload(): Offload;
  /** The store's tables exist. */
  ready(): Promise<void>;
  /** Newly stored metadata keys become filterable. */
  noteKeys(stored: readonly StoredChunk[], owner: string | undefined): Promise<void>;
}

/** Read documents, with the reader that read them and the chunker for them. */
export interface ReadPart {
  documents: Document[];
  chunker: Chunker;
  reader: Reader;
}

/** Where the chunks go and what they carry. */
export interface StoreTarget {
  name: string;
  /** The file name the content was read as (CodeChunker picks the language from it). */
  sourceName: string;
  /** A paged source's URL or key, stamped on its chunks. */
  sourceId?: string | undefined;
  metadata: Metadata;
  contentId: string;
  userId: string | undefined;
  signal: AbortSignal | undefined;
}

/**
 * Chunks, embeds and stores read documents under one content id, each group with its chunker.
 * Chunk ids must be unique within the content; a repeated one gets a suffix.
 */
export async function storeParts(host: PipelineHost, parts: readonly ReadPart[], c: StoreTarget): Promise<{ content_id: string; name: string; chunks: number }> {
  const { name, metadata, contentId } = c;
  const context: ChunkContext = { embedder: host.embedder, model: host.chunkModel(), sourceName: c.sourceName, signal: c.signal };
  const chunks: Chunk[] = [];
  const offload = host.offload();
  for (const part of parts) append(chunks, await chunkDocuments(part.documents, part.reader, part.chunker, metadata, c.sourceId, context, offload));
  if (chunks.length === 0) throw unprocessable(`"${name}" has no content to index`);
  // Each pass over the chunks yields to the event loop every few ms: at 150k chunks the copy
  // into stored rows alone held it for ~0.4 s.
  const slicer = new TimeSlicer(SLICE_MS, c.signal);
  const seen = new Map<string, number>();
  for (let i = 0; i < chunks.length; i++) {
    if ((i & 255) === 0) await slicer.pause();
    const chunk = chunks[i]!;
    const n = seen.get(chunk.id) ?? 0;
    seen.set(chunk.id, n + 1);
    if (n > 0) chunk.id = `${chunk.id}~${n + 1}`;
  }
  const vectors = host.embedder ? await host.embedder.embed(chunks.map((chunk) => chunk.content), c.signal) : undefined;
  const stored: StoredChunk[] = await mapSliced(chunks, (chunk, i) => ({ ...chunk, filters: metadata, embedding: vectors?.[i] }), slicer);
  await host.ready();
  await host.store.upsert(contentId, stored, host.embedder?.id, { knowledgeId: host.id, userId: c.userId });
  await host.noteKeys(stored, c.userId);
  return { content_id: contentId, name, chunks: stored.length };
}

/**
 * Chunks a reader's documents: the parts of a paged source (PDF pages, slides) as one text whose
 * chunks are stamped with the parts they cover (see paged.ts); other documents one by one.
 */
async function chunkDocuments(
  documents: Document[],
  reader: Reader,
  chunker: Chunker,
  metadata: Metadata,
  sourceId: string | undefined,
  context: ChunkContext,
  offload: Offload,
): Promise<Chunk[]> {
  const joined = reader.pagedBy ? joinParts(documents, reader.pagedBy, sourceId) : undefined;
  if (joined) return stampParts(joined, await chunkOffloaded(offload, chunker, { ...joined.document, meta_data: { ...joined.document.meta_data, ...metadata } }, context));
  const chunks: Chunk[] = [];
  for (const doc of documents) {
    context.signal?.throwIfAborted();
    append(chunks, await chunkOffloaded(offload, chunker, { ...doc, meta_data: { ...doc.meta_data, ...metadata } }, context));
  }
  return chunks;
}
