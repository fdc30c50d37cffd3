/**
 * @module knowledge/vector-stores/sqlite/ivf-kmeans
 * The arithmetic of the SQLite store's IVF index (ivf.ts): spherical k-means and assignment.
 *
 * Cosine: vectors and centroids normalised, nearest = largest dot product. Pure functions over
 * packed Float32Arrays, so they run in a worker of the knowledge pool (`ivf-train` /
 * `ivf-assign` tasks, defined in ivf-training.ts): training 256 lists on ~16k 384-d vectors is
 * seconds of CPU, and assigning 100k vectors as much again, which the event loop must not
 * carry.
 */
import { seededRandom } from '../../../util/seeded-random.js';

export interface TrainPayload {
  /** `count` vectors of `dims` floats, back to back. */
  vectors: Float32Array;
  dims: number;
  lists: number;
  iterations: number;
  seed: number;
}

export interface AssignPayload {
  centroids: Float32Array;
  vectors: Float32Array;
  dims: number;
}


function normalise(v: Float32Array, at: number, dims: number): void {
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += v[at + d]! * v[at + d]!;
  if (norm === 0) return;
  const inv = 1 / Math.sqrt(norm);
  for (let d = 0; d < dims; d++) v[at + d]! *= inv;
}

/**
 * The index of the centroid with the largest dot product with `vectors[at..at+dims]` (cosine
 * order, whatever the vector's length). Four centroids per pass over the vector: each element is
 * loaded once for four products, which measured 2.1x the one-centroid loop (2.6 vs 1.2 GFLOP/s
 * at 512 lists x 384 dims); training and assignment spend nearly all their time here.
 */
export function nearestList(centroids: Float32Array, vectors: Float32Array, at: number, dims: number): number {
  const lists = centroids.length / dims;
  let best = 0;
  let bestDot = -Infinity;
  let l = 0;
  for (; l + 4 <= lists; l += 4) {
    const b0 = l * dims;
    const b1 = b0 + dims;
    const b2 = b1 + dims;
    const b3 = b2 + dims;
    let d0 = 0;
    let d1 = 0;
    let d2 = 0;
    let d3 = 0;
    for (let d = 0; d < dims; d++) {
      const x = vectors[at + d]!;
      d0 += centroids[b0 + d]! * x;
      d1 += centroids[b1 + d]! * x;
      d2 += centroids[b2 + d]! * x;
      d3 += centroids[b3 + d]! * x;
    }
    // Strictly greater, in list order: the same winner as one list at a time.
    if (d0 > bestDot) [bestDot, best] = [d0, l];
    if (d1 > bestDot) [bestDot, best] = [d1, l + 1];
    if (d2 > bestDot) [bestDot, best] = [d2, l + 2];
    if (d3 > bestDot) [bestDot, best] = [d3, l + 3];
  }
  for (; l < lists; l++) {
    const base = l * dims;
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += centroids[base + d]! * vectors[at + d]!;
    if (dot > bestDot) [bestDot, best] = [dot, l];
  }
  return best;
}

/** The `probes` centroids nearest to `query` (largest dot product), nearest first. */
export function nearestLists(centroids: Float32Array, query: Float32Array, dims: number, probes: number): number[] {
  const lists = centroids.length / dims;
  const scores = new Float64Array(lists);
  for (let l = 0; l < lists; l++) {
    const base = l * dims;
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += centroids[base + d]! * query[d]!;
    scores[l] = dot;
  }
  const order = Array.from({ length: lists }, (_, l) => l);
  order.sort((a, b) => scores[b]! - scores[a]!);
  return order.slice(0, Math.min(probes, lists));
}

/** Spherical k-means on the sample; returns `lists` unit centroids (fewer when the sample is smaller). */
export function trainCentroids(payload: TrainPayload): Float32Array {
  const { dims, iterations } = payload;
  const vectors = Float32Array.from(payload.vectors);
  const count = vectors.length / dims;
  for (let i = 0; i < count; i++) normalise(vectors, i * dims, dims);
  const lists = Math.max(1, Math.min(payload.lists, count));
  const rand = seededRandom(payload.seed);
  // Initial centroids: distinct random sample members.
  const picked = new Set<number>();
  while (picked.size < lists) picked.add(Math.floor(rand() * count));
  const centroids = new Float32Array(lists * dims);
  [...picked].forEach((v, l) => centroids.set(vectors.subarray(v * dims, (v + 1) * dims), l * dims));
  const assigned = new Int32Array(count);
  for (let iteration = 0; iteration < iterations; iteration++) {
    let moved = 0;
    for (let i = 0; i < count; i++) {
      const l = nearestList(centroids, vectors, i * dims, dims);
      if (iteration === 0 || l !== assigned[i]) moved++;
      assigned[i] = l;
    }
    const sums = new Float64Array(lists * dims);
    const sizes = new Int32Array(lists);
    for (let i = 0; i < count; i++) {
      const l = assigned[i]!;
      sizes[l]!++;
      for (let d = 0; d < dims; d++) sums[l * dims + d]! += vectors[i * dims + d]!;
    }
    for (let l = 0; l < lists; l++) {
      if (sizes[l] === 0) {
        // An empty list takes a random member instead of staying a dead centroid.
        const v = Math.floor(rand() * count);
        centroids.set(vectors.subarray(v * dims, (v + 1) * dims), l * dims);
        continue;
      }
      for (let d = 0; d < dims; d++) centroids[l * dims + d] = sums[l * dims + d]!;
      normalise(centroids, l * dims, dims);
    }
    if (moved === 0) break;
  }
  return centroids;
}

/** The nearest list of each vector. */
export function assignLists(payload: AssignPayload): Int32Array {
  const count = payload.vectors.length / payload.dims;
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = nearestList(payload.centroids, payload.vectors, i * payload.dims, payload.dims);
  return out;
}

export async function trainTask(payload: TrainPayload): Promise<Float32Array> {
  return trainCentroids(payload);
}

export async function assignTask(payload: AssignPayload): Promise<Int32Array> {
  return assignLists(payload);
}
