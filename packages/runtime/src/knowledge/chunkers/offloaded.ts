/**
 * @module knowledge/chunkers/offloaded
 * The text-only chunkers (fixed-size, recursive, document, markdown, row and code: those whose
 * definition has `offload`) are pure functions of the document and their settings, so a large
 * document is chunked in the worker pool instead of on the event loop: a 10 MB text split into
 * 100k chunks takes seconds of CPU. The worker rebuilds the same chunker from its settings, by
 * its definition in the list, and runs the same code, so the chunks are exactly those the main
 * thread would make (see offloaded.test.ts).
 *
 * Small documents stay inline: below `OFFLOAD_MIN_CHARS` chunking takes about a millisecond,
 * less than the round trip to a worker.
 *
 * The chunks come back packed (packChunks): receiving 110k chunk objects as they are costs the
 * main thread ~300 ms of structured-clone deserialization in one piece. Packed, they are a few
 * strings and integer arrays (copied in milliseconds) from which the main thread rebuilds the
 * chunks in slices, yielding to the event loop between them.
 */
import type { ChunkContext, ChunkerOffload } from './chunker.js';
import { CHUNKER_LIST, type Chunker } from './list.js';
import { SLICE_MS, TimeSlicer } from '../../util/time-slicer.js';
import type { Chunk, Document, Metadata } from '../types.js';
import type { Offload } from '../../workers/offload.js';
import type { WorkerPool } from '../../workers/pool.js';
import { defineWorkerTask } from '../../workers/task.js';

const CHUNK = defineWorkerTask('chunk', import.meta.url, './offloaded.js', 'chunkTask');

export const OFFLOAD_MIN_CHARS = 32 * 1024;

type Listed = (typeof CHUNKER_LIST)[number];
type SpecOf<D> = D extends { key: infer K; offload?: { settings(chunker: never): infer S } | undefined } ? ([S] extends [never] ? never : { type: K } & S) : never;

/** A pure chunker as plain data: its key and the settings its definition's `offload` gives. */
export type ChunkerSpec = SpecOf<Listed>;

/** The listed strategies that can run in a worker (those whose definition has `offload`). */
const OFFLOADABLE = CHUNKER_LIST.flatMap(({ key, offload }): { key: string; offload: ChunkerOffload<Chunker, object> }[] => (offload ? [{ key, offload }] : []));

/**
 * The spec of a chunker that can run in a worker, or undefined (semantic and agentic chunkers
 * call the embedder or model, and a subclass may behave differently from its base).
 */
export function chunkerSpec(chunker: Chunker): ChunkerSpec | undefined {
  const proto = Object.getPrototypeOf(chunker) as unknown;
  const listed = OFFLOADABLE.find(({ offload }) => proto === offload.class.prototype);
  return listed ? ({ type: listed.key, ...listed.offload.settings(chunker) } as ChunkerSpec) : undefined;
}

export function chunkerFromSpec(spec: ChunkerSpec): Chunker {
  const { type, ...settings } = spec;
  const listed = OFFLOADABLE.find(({ key }) => key === type);
  if (!listed) throw new Error(`No chunker "${type}" runs in a worker`);
  return listed.offload.rebuild(settings);
}

export interface ChunkPayload {
  spec: ChunkerSpec;
  doc: Document;
  sourceName: string | undefined;
}

/** The `chunk` task: the chunker rebuilt from its spec, run in this worker. */
export async function chunkTask(payload: ChunkPayload): Promise<PackedChunks | Chunk[]> {
  const chunks = await chunkerFromSpec(payload.spec).chunk(payload.doc, { sourceName: payload.sourceName });
  return packChunks(payload.doc, chunks);
}

/**
 * Chunks as concatenated strings with end offsets. A chunk's metadata is the document's plus
 * what the chunker added (`own`, JSON): the main thread takes the document's values from its own
 * copy of the document, so they are the very values an inline chunker would have copied.
 */
export interface PackedChunks {
  packed: true;
  count: number;
  contents: string;
  contentEnds: Uint32Array;
  ids: string;
  idEnds: Uint32Array;
  own: string;
  ownEnds: Uint32Array;
}

/** Packs chunks made from `doc`, or returns them as they are when they do not have the usual shape. */
export function packChunks(doc: Document, chunks: readonly Chunk[]): PackedChunks | Chunk[] {
  const contents: string[] = [];
  const ids: string[] = [];
  const own: string[] = [];
  const contentEnds = new Uint32Array(chunks.length);
  const idEnds = new Uint32Array(chunks.length);
  const ownEnds = new Uint32Array(chunks.length);
  let [c, i, o] = [0, 0, 0];
  for (let n = 0; n < chunks.length; n++) {
    const chunk = chunks[n]!;
    const keys = Object.keys(chunk);
    if (chunk.name !== doc.name || keys.length !== 4 || !keys.every((k, at) => k === CHUNK_KEYS[at])) return [...chunks];
    const added: Metadata = {};
    for (const [key, value] of Object.entries(chunk.meta_data)) {
      if (Object.hasOwn(doc.meta_data, key) && Object.is(doc.meta_data[key], value)) continue;
      // Only plain values survive JSON unchanged; anything else goes back as it is.
      if (!(typeof value === 'string' || typeof value === 'boolean' || value === null || (typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0)))) return [...chunks];
      added[key] = value;
    }
    // The rebuilt metadata spreads the document's first, so its keys must come first here too.
    if (!sameOrder(doc.meta_data, chunk.meta_data)) return [...chunks];
    const json = JSON.stringify(added);
    contents.push(chunk.content);
    ids.push(chunk.id);
    own.push(json);
    contentEnds[n] = c += chunk.content.length;
    idEnds[n] = i += chunk.id.length;
    ownEnds[n] = o += json.length;
  }
  return { packed: true, count: chunks.length, contents: contents.join(''), contentEnds, ids: ids.join(''), idEnds, own: own.join(''), ownEnds };
}

const CHUNK_KEYS = ['content', 'name', 'id', 'meta_data'];

/** True when `meta` starts with the keys of `base`, in their order (what `{ ...base, ...more }` gives). */
function sameOrder(base: Metadata, meta: Metadata): boolean {
  const keys = Object.keys(meta);
  return Object.keys(base).every((key, at) => keys[at] === key);
}

/**
 * Rebuilds packed chunks of `doc`, yielding to the event loop every few ms (a fixed 2000 chunks
 * per slice took 20-60 ms on a loaded machine, with garbage collection).
 */
export async function unpackChunks(doc: Document, packed: PackedChunks, signal?: AbortSignal): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  const slicer = new TimeSlicer(SLICE_MS, signal);
  for (let n = 0; n < packed.count; n++) {
    if ((n & 127) === 0 && n > 0) await slicer.pause();
    const at = (ends: Uint32Array) => [n === 0 ? 0 : ends[n - 1]!, ends[n]!] as const;
    const own = JSON.parse(packed.own.slice(...at(packed.ownEnds))) as Metadata;
    chunks.push({ content: packed.contents.slice(...at(packed.contentEnds)), name: doc.name, id: packed.ids.slice(...at(packed.idEnds)), meta_data: { ...doc.meta_data, ...own } });
  }
  return chunks;
}

/** Chunks `doc` in a worker of `pool` with the chunker `spec` describes. */
export async function chunkInWorker(pool: WorkerPool, spec: ChunkerSpec, doc: Document, context: ChunkContext = {}): Promise<Chunk[]> {
  const payload: ChunkPayload = { spec, doc, sourceName: context.sourceName };
  const result = await pool.run<PackedChunks | Chunk[]>(CHUNK, payload, { signal: context.signal, label: `${spec.type}: "${doc.name ?? doc.id ?? 'content'}"` });
  return Array.isArray(result) ? result : unpackChunks(doc, result, context.signal);
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
