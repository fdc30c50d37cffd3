/**
 * @module knowledge/ingest/chunk-parts
 * Chunking what a reader read, against the content's chunk budget, where it costs the event
 * loop least. With a text-only chunker (chunkers/offloaded.ts's `chunkerSpec`) and a pool, the
 * documents go to a worker (`chunk-parts` task): a paged source's parts all at once (joined,
 * chunked and stamped there, see paged.ts: a deck listing one slide 1,000 times held the loop
 * for seconds on the main thread), other documents in batches of at most BATCH_CHARS characters
 * or BATCH_DOCUMENTS documents (a JSON array's items one by one held it 4.6 s). Documents travel
 * packed both ways (knowledge/packed.ts). Small inputs, and the chunkers that call the embedder
 * or the model, chunk on the main thread, yielding to the event loop between documents.
 *
 * The budget (knowledge/limits.ts) is checked before each document is chunked, from what its
 * chunker must at least make of it (a million-row CSV under RowChunker is refused before a
 * million chunks exist), and after.
 */
import type { Offload } from '../../workers/offload.js';
import type { WorkerPool } from '../../workers/pool.js';
import { defineWorkerTask } from '../../workers/task.js';
import { SLICE_MS, TimeSlicer } from '../../util/time-slicer.js';
import { append, type ChunkContext } from '../chunkers/chunker.js';
import type { Chunker } from '../chunkers/list.js';
import { OFFLOAD_MIN_CHARS, chunkerFromSpec, chunkerSpec, type ChunkerSpec } from '../chunkers/offloaded.js';
import { checkAtLeast, spend, type ChunkBudget } from '../limits.js';
import { packRecords, unpackRecords, unpackRecordsNow, type PackedRecords } from '../packed.js';
import type { Chunk, Document, Metadata } from '../types.js';
import { joinParts, stampParts, stampPartsSliced } from './paged.js';

const CHUNK_PARTS = defineWorkerTask('chunk-parts', import.meta.url, './chunk-parts.js', 'chunkPartsTask');

/** A batch sent to a worker holds at most this many characters (packing it is ~1 ms)... */
export const BATCH_CHARS = 1 << 20;
/** ...and at most this many documents. */
export const BATCH_DOCUMENTS = 4096;
/** Fewer small documents than this are chunked on the main thread (each takes microseconds). */
const INLINE_MAX_DOCUMENTS = 64;

/** What the documents are chunked as. */
export interface ChunkJob {
  /** The content's name, for the budget's refusals. */
  name: string;
  /** The caller's metadata, laid over each document's. */
  metadata: Metadata;
  /** The reader's `pagedBy`: the documents are the numbered parts of one source. */
  pagedBy?: string | undefined;
  /** A paged source's URL or key, stamped on its chunks. */
  sourceId?: string | undefined;
}

export interface ChunkPartsPayload extends ChunkJob {
  spec: ChunkerSpec;
  documents: PackedRecords | Document[];
  sourceName: string | undefined;
  budget: ChunkBudget;
}

export interface ChunkPartsReply {
  chunks: PackedRecords | Chunk[];
  budget: ChunkBudget;
}

/**
 * At least how many chunks `chunker` makes of `content`: a row chunker one per non-blank line; a
 * sized one holds at most chunk_size + overlap characters a chunk and covers every non-blank
 * character; 0 when unknown (the budget is then checked after).
 */
export function atLeast(spec: ChunkerSpec | undefined, content: string): number {
  if (!spec) return 0;
  if (spec.type === 'RowChunker') {
    let lines = 0;
    let blank = true;
    for (let i = 0; i < content.length; i++) {
      const c = content.charCodeAt(i);
      if (c === 0x0a || c === 0x0d) {
        if (!blank) lines++;
        blank = true;
      } else if (blank && c > 0x20) blank = false;
    }
    return lines + (blank ? 0 : 1) - (spec.skipHeader ? 1 : 0);
  }
  if (!('chunkSize' in spec)) return 0;
  let visible = 0;
  for (let i = 0; i < content.length; i++) if (content.charCodeAt(i) > 0x20) visible++;
  return Math.ceil(visible / (spec.chunkSize + ('overlap' in spec ? spec.overlap : 0)));
}

/**
 * Chunks documents with `chunker` (in this thread), spending the budget as it goes; `slicer`
 * yields to the event loop between documents on the main thread.
 */
export async function chunkHere(documents: readonly Document[], chunker: Chunker, job: ChunkJob, context: ChunkContext, budget: ChunkBudget, slicer?: TimeSlicer): Promise<Chunk[]> {
  const spec = chunkerSpec(chunker);
  const joined = job.pagedBy ? joinParts(documents, job.pagedBy, job.sourceId) : undefined;
  if (joined) {
    const doc = { ...joined.document, meta_data: { ...joined.document.meta_data, ...job.metadata } };
    checkAtLeast(budget, job.name, atLeast(spec, doc.content));
    const chunks = await chunker.chunk(doc, context);
    spend(budget, job.name, chunks);
    return slicer ? stampPartsSliced(joined, chunks, slicer) : stampParts(joined, chunks);
  }
  const chunks: Chunk[] = [];
  for (const doc of documents) {
    context.signal?.throwIfAborted();
    if (slicer) await slicer.pause();
    const merged = { ...doc, meta_data: { ...doc.meta_data, ...job.metadata } };
    checkAtLeast(budget, job.name, atLeast(spec, merged.content));
    const made = await chunker.chunk(merged, context);
    spend(budget, job.name, made);
    append(chunks, made);
  }
  return chunks;
}

/** The `chunk-parts` task: the chunker rebuilt from its spec, run over the batch in this worker. */
export async function chunkPartsTask(payload: ChunkPartsPayload): Promise<ChunkPartsReply> {
  const documents = unpackRecordsNow<Document>(payload.documents);
  const { budget } = payload;
  const chunks = await chunkHere(documents, chunkerFromSpec(payload.spec), payload, { sourceName: payload.sourceName }, budget);
  return { chunks: packRecords(chunks), budget };
}

/**
 * Chunks a reader's documents where it is cheapest for the event loop (see the module's
 * comment), spending `budget`.
 */
export async function chunkParts(offload: Offload, documents: readonly Document[], chunker: Chunker, job: ChunkJob, context: ChunkContext, budget: ChunkBudget): Promise<Chunk[]> {
  const slicer = new TimeSlicer(SLICE_MS, context.signal);
  const spec = offload === 'inline' ? undefined : chunkerSpec(chunker);
  let characters = 0;
  for (const doc of documents) characters += doc.content.length;
  if (!spec || (characters < OFFLOAD_MIN_CHARS && documents.length < INLINE_MAX_DOCUMENTS)) return chunkHere(documents, chunker, job, context, budget, slicer);
  if (job.pagedBy) return chunkInWorker(offload as WorkerPool, spec, documents, job, context, budget);
  const chunks: Chunk[] = [];
  let batch: Document[] = [];
  let size = 0;
  const flush = async () => {
    if (batch.length > 0) append(chunks, await chunkInWorker(offload as WorkerPool, spec, batch, job, context, budget));
    batch = [];
    size = 0;
  };
  for (const doc of documents) {
    if (batch.length > 0 && (size + doc.content.length > BATCH_CHARS || batch.length >= BATCH_DOCUMENTS)) await flush();
    batch.push(doc);
    size += doc.content.length;
  }
  await flush();
  return chunks;
}

async function chunkInWorker(pool: WorkerPool, spec: ChunkerSpec, documents: readonly Document[], job: ChunkJob, context: ChunkContext, budget: ChunkBudget): Promise<Chunk[]> {
  const payload: ChunkPartsPayload = { ...job, spec, documents: packRecords(documents), sourceName: context.sourceName, budget };
  const reply = await pool.run<ChunkPartsReply>(CHUNK_PARTS, payload, { signal: context.signal, label: `${spec.type}: "${job.name}"` });
  budget.chunks = reply.budget.chunks;
  budget.characters = reply.budget.characters;
  return unpackRecords<Chunk>(reply.chunks, context.signal);
}
