/**
 * @module knowledge/vector-stores/reindex
 * What a store offers to re-embed itself with another embedder without ever showing a mix.
 *
 * A store records which embedder and dimension built its vectors (`_meta` key `embedder`,
 * `<embedder id>:<dimensions>`). A reindex names its target (`_meta` key `reindex`) and fills a
 * staging table (`<table>_reindex`: content id, chunk id, vector) batch by batch; vector search
 * keeps reading the chunk table's vectors all along. Each staged vector is written only if the
 * chunk still holds the text that was embedded, so content replaced meanwhile is embedded again.
 * Uploads made with the target embedder while a reindex runs are staged too. When no chunk is
 * left without a staged vector, one transaction moves the staged vectors into the chunk table
 * and records the target as the store's embedder. Progress is the staging table itself, so a
 * worker that dies loses only the batch it had in flight.
 */
import { parseEmbedderKey, type EmbedderRecord } from './embedder-record.js';

export interface StoreEmbedderState {
  /** What built the stored vectors; undefined while the store holds none. */
  embedder: EmbedderRecord | undefined;
  /** The embedder a reindex in progress re-embeds with. */
  reindexTarget: string | undefined;
  /** The last reindex that finished. */
  lastReindex: { embedder: string; dimensions: number | null; chunks: number; finished_at: number } | undefined;
}

/** A chunk waiting for its new vector: the text is what gets embedded, and checked on write. */
export interface PendingChunk {
  content_id: string;
  chunk_id: string;
  content: string;
}

export interface ReindexableStore {
  embedderState(): Promise<StoreEmbedderState>;
  /** Starts (or keeps) a reindex to `target`; a different target in progress is replaced and its staged vectors dropped. */
  beginReindex(target: string): Promise<void>;
  /** Chunks without a staged vector, in a stable order. */
  pendingChunks(limit: number): Promise<PendingChunk[]>;
  /** Stages vectors of chunks that still hold the embedded text; returns how many were staged. */
  stageVectors(rows: readonly (PendingChunk & { embedding: number[] })[]): Promise<number>;
  reindexCounts(): Promise<{ done: number; total: number }>;
  /**
   * When every chunk has a staged vector: swaps them in and records `target` as the embedder,
   * in one transaction. False (nothing changed) while chunks remain, or when the reindex in
   * progress is not to `target`.
   */
  finishReindex(target: string): Promise<boolean>;
}

export function isReindexable(store: object): store is ReindexableStore {
  return typeof (store as Partial<ReindexableStore>).beginReindex === 'function' && typeof (store as Partial<ReindexableStore>).embedderState === 'function';
}

/** A store's state from its `_meta` values (`embedder`, `reindex`, `reindex_done`). */
export function embedderStateOf(meta: Readonly<Record<string, string>>): StoreEmbedderState {
  return { embedder: meta.embedder ? parseEmbedderKey(meta.embedder) : undefined, reindexTarget: meta.reindex, lastReindex: parseLastReindex(meta.reindex_done) };
}

/** The `reindex_done` value a swap records: what the last reindex did, and when. */
export function reindexDone(target: string, dimensions: number | null, chunks: number): string {
  return JSON.stringify({ embedder: target, dimensions, chunks, finished_at: Math.floor(Date.now() / 1000) });
}

export function parseLastReindex(value: string | undefined): StoreEmbedderState['lastReindex'] {
  if (!value) return undefined;
  try {
    return JSON.parse(value) as StoreEmbedderState['lastReindex'];
  } catch {
    return undefined;
  }
}

/**
 * Where an upsert's vectors go: the chunk table (`main`), the staging table (`stage`), or both.
 * `stored` and `reindex` are the store's `_meta` values; `key` is `<embedder>:<dims>` of the upsert.
 */
export function routeVectors(stored: string | undefined, reindex: string | undefined, embedderId: string | undefined, key: string): { main: boolean; stage: boolean } {
  if (reindex === undefined || embedderId !== reindex) return { main: true, stage: false };
  // Vectors of the reindex target wait with the others; they join the searched ones only if
  // they are comparable with them already (a reindex with the same embedder).
  return { main: stored === key, stage: true };
}

/**
 * Whether a store's vectors can be compared with an embedder's: yes when the store holds none or
 * was built by it. While they differ (a reindex to this embedder is under way) searches use
 * keywords only; the answer is read again at most once a second, and kept once it is yes.
 */
export class EmbedderGate {
  private matched = false;
  private checked: { at: number; usable: Promise<boolean> } | undefined;

  constructor(
    private readonly store: ReindexableStore,
    private readonly embedderId: string,
  ) {}

  usable(now = Date.now()): Promise<boolean> {
    if (this.matched) return Promise.resolve(true);
    if (this.checked && now - this.checked.at < 1000) return this.checked.usable;
    const usable = this.store.embedderState().then((state) => {
      const ok = state.embedder === undefined || state.embedder.id === this.embedderId;
      if (ok) this.matched = true;
      return ok;
    });
    this.checked = { at: now, usable };
    usable.catch(() => (this.checked = undefined));
    return usable;
  }
}
