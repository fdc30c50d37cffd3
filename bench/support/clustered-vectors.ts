/**
 * Synthetic embeddings with the structure of real ones, at the local embedder's dimension (512),
 * for the PostgreSQL vector-index bench (bench/knowledge-postgres.ts). Uniform random vectors
 * have no neighbourhoods, so no approximate index does well on them and nothing is learnt;
 * real embeddings of 100k chunks would take the local embedder (~5,000 characters a second)
 * hours. These stand between:
 *
 * - a shared direction every vector leans on (real sentence embeddings are not centred: two
 *   unrelated texts have a cosine of ~0.1-0.2);
 * - `topics` topic directions, each with a subspace of its own of `rank` dimensions (texts on
 *   one topic vary along a few directions, not all 512: low intrinsic dimension);
 * - documents of `documentChunks` chunks: a document is a point of its topic's subspace, and
 *   its chunks scatter around it in that subspace, plus a little isotropic noise;
 * - topics of unequal size (Zipf-like), as real collections have.
 *
 * Cosine, unrelated / same topic / same document: ~0.15 / ~0.45 / ~0.75. Queries are new
 * chunks of existing documents, with twice the chunk noise (queries are shorter than chunks).
 * Every vector is a function of (seed, index), so the corpus is never held in memory.
 */
import { seededRandom } from '../../packages/runtime/src/util/seeded-random.js';

export interface ClusteredOptions {
  dimensions?: number;
  topics?: number;
  rank?: number;
  documentChunks?: number;
  seed?: number;
}

/** Weights (squared: shares of the variance) of the parts of a vector. */
const SHARED = Math.sqrt(0.15);
const TOPIC = Math.sqrt(0.3);
const DOCUMENT = Math.sqrt(0.3);
const CHUNK = Math.sqrt(0.2);
const NOISE = Math.sqrt(0.05);

export class ClusteredVectors {
  readonly dimensions: number;
  readonly topics: number;
  readonly rank: number;
  readonly documentChunks: number;
  private readonly seed: number;
  private readonly shared: Float32Array;
  private readonly topicCentres: Float32Array[];
  private readonly topicBases: Float32Array[];
  /** Cumulative topic weights (Zipf-like sizes). */
  private readonly topicCdf: number[];

  constructor(options: ClusteredOptions = {}) {
    this.dimensions = options.dimensions ?? 512;
    this.topics = options.topics ?? 200;
    this.rank = options.rank ?? 24;
    this.documentChunks = options.documentChunks ?? 40;
    this.seed = options.seed ?? 1;
    const next = seededRandom(this.seed);
    const normal = gaussian(next);
    this.shared = unit(Float32Array.from({ length: this.dimensions }, normal));
    this.topicCentres = Array.from({ length: this.topics }, () => unit(Float32Array.from({ length: this.dimensions }, normal)));
    // Each basis vector scaled so a unit normal z in the subspace has length ~1.
    const scale = 1 / Math.sqrt(this.rank * this.dimensions);
    this.topicBases = Array.from({ length: this.topics }, () => Float32Array.from({ length: this.rank * this.dimensions }, () => normal() * scale * Math.sqrt(this.rank)));
    const weights = Array.from({ length: this.topics }, (_, i) => 1 / (i + 1) ** 0.8);
    const total = weights.reduce((a, b) => a + b, 0);
    let sum = 0;
    this.topicCdf = weights.map((w) => (sum += w / total));
  }

  /** The topic of document `d`, drawn by the Zipf-like weights. */
  topicOf(document: number): number {
    const u = seededRandom(hash(this.seed, document, 0x51ed))();
    const i = this.topicCdf.findIndex((c) => u <= c);
    return i < 0 ? this.topics - 1 : i;
  }

  documentOf(index: number): number {
    return Math.floor(index / this.documentChunks);
  }

  /** The `index`-th chunk's vector (unit length). */
  vector(index: number): Float32Array {
    return this.point(this.documentOf(index), hash(this.seed, index, 0xc0ffee), 1);
  }

  /** A query: a new chunk of the document holding chunk `near`, noisier than a chunk. */
  query(near: number, n: number): Float32Array {
    return this.point(this.documentOf(near), hash(this.seed, n, 0x9e3779b9), 2);
  }

  private point(document: number, seed: number, noise: number): Float32Array {
    const d = this.dimensions;
    const topic = this.topicOf(document);
    const basis = this.topicBases[topic]!;
    const centre = this.topicCentres[topic]!;
    const docNormal = gaussian(seededRandom(hash(this.seed, document, 0xd0c)));
    const ownNormal = gaussian(seededRandom(seed));
    const out = new Float32Array(d);
    for (let i = 0; i < d; i++) out[i] = SHARED * this.shared[i]! + TOPIC * centre[i]!;
    // The document's point and the chunk's offset, both in the topic's subspace.
    const chunkWeight = CHUNK * noise;
    for (let r = 0; r < this.rank; r++) {
      const w = (DOCUMENT * docNormal() + chunkWeight * ownNormal()) / Math.sqrt(this.rank);
      const row = r * d;
      for (let i = 0; i < d; i++) out[i]! += w * basis[row + i]!;
    }
    const iso = (NOISE * noise) / Math.sqrt(d);
    for (let i = 0; i < d; i++) out[i]! += iso * ownNormal();
    return unit(out);
  }
}

function gaussian(next: () => number): () => number {
  return () => {
    const u = next() || 1e-12;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

function hash(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x85ebca6b, 0xc2b2ae35) ^ b;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) ^ c;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
