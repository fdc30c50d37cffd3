/**
 * @module knowledge/ingest/pipeline
 * The one-way part of an insert, after its reader and chunker are resolved: chunk what was read
 * (in the worker pool unless it is small, see chunk-parts.ts; paged sources as one text, see
 * paged.ts) within the content's chunk budget, number the chunks, embed, and store under the
 * content id. Every pass over the chunks on the main thread yields to the event
 * loop every few ms.
 */
import { unprocessable } from '../../errors.js';
import type { Model } from '../../model/model.js';
import { SLICE_MS, TimeSlicer, mapSliced } from '../../util/time-slicer.js';
import type { Offload } from '../../workers/offload.js';
import { append, type ChunkContext } from '../chunkers/chunker.js';
import type { Chunker } from '../chunkers/list.js';
import type { Embedder } from '../../model/embedder.js';
import { chunkBudget, type IngestLimits } from '../limits.js';
import type { Reader } from '../readers/reader.js';
import type { Chunk, Document, Metadata } from '../types.js';
import type { StoredChunk, VectorStore } from '../vector-stores/vector-store.js';
import { chunkScope, type ChunkScope } from '../vector-stores/chunk-scope.js';
import { chunkParts } from './chunk-parts.js';

/** What the pipeline needs of its knowledge base. */
export interface PipelineHost {
  readonly id: string;
  readonly store: VectorStore;
  readonly embedder: Embedder | undefined;
  /** The model chunkers may call (set once the hosting runtime is known). */
  chunkModel(): Model | undefined;
  /** Where large documents are chunked. */
  offload(): Offload;
  /** The budgets one content is held to. */
  readonly limits: IngestLimits;
  /** The store's tables exist. */
  ready(): Promise<void>;
  /** Newly stored metadata keys become filterable. */
  noteKeys(stored: readonly StoredChunk[], owner: ChunkScope | undefined): Promise<void>;
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
  /** The tenant the chunks belong to (auth/tenancy.ts); undefined: none. */
  tenantId?: string | undefined;
  signal: AbortSignal | undefined;
  /** Earlier versions this content replaces: hidden in the step that makes it visible. */
  replaces?: readonly string[] | undefined;
}

/** Chunks, embeds and stores read documents under one content id, each group with its chunker. */
export async function storeParts(host: PipelineHost, parts: readonly ReadPart[], c: StoreTarget): Promise<{ content_id: string; name: string; chunks: number }> {
  return storeChunks(host, await chunkAll(host, parts, c), c);
}

/** Chunks every group of read documents with its chunker, within the content's chunk budget. */
export async function chunkAll(host: PipelineHost, parts: readonly ReadPart[], c: StoreTarget): Promise<Chunk[]> {
  const context: ChunkContext = { embedder: host.embedder, model: host.chunkModel(), sourceName: c.sourceName, signal: c.signal };
  const chunks: Chunk[] = [];
  const offload = host.offload();
  const budget = chunkBudget(host.limits);
  for (const part of parts) {
    const job = { name: c.name, metadata: c.metadata, pagedBy: part.reader.pagedBy, sourceId: c.sourceId };
    append(chunks, await chunkParts(offload, part.documents, part.chunker, job, context, budget));
  }
  if (chunks.length === 0) throw unprocessable(`"${c.name}" has no content to index`);
  return chunks;
}

/**
 * Numbers the chunks, embeds them and stores them under the content id. A stored chunk's id is
 * its 1-based position in the content, so `{content_id}_{n}` names a hit uniquely and stably
 * (the chunkers' ids come from the document's name, which another content can share).
 */
export async function storeChunks(host: PipelineHost, chunks: Chunk[], c: StoreTarget): Promise<{ content_id: string; name: string; chunks: number }> {
  const { name, metadata, contentId } = c;
  // Each pass over the chunks yields to the event loop every few ms: at 150k chunks the copy
  // into stored rows alone held it for ~0.4 s.
  const slicer = new TimeSlicer(SLICE_MS, c.signal);
  for (let i = 0; i < chunks.length; i++) {
    if ((i & 255) === 0) await slicer.pause();
    chunks[i]!.id = String(i + 1);
  }
  const vectors = host.embedder ? await host.embedder.embed(await mapSliced(chunks, (chunk) => chunk.content, slicer), c.signal) : undefined;
  const stored: StoredChunk[] = await mapSliced(chunks, (chunk, i) => ({ ...chunk, filters: metadata, embedding: vectors?.[i] }), slicer);
  await host.ready();
  await host.store.upsert(contentId, stored, host.embedder?.id, { knowledgeId: host.id, userId: c.userId, tenantId: c.tenantId }, { replaces: c.replaces });
  await host.noteKeys(stored, chunkScope(c.userId, c.tenantId));
  return { content_id: contentId, name, chunks: stored.length };
}
