/**
 * @module knowledge/vector-stores/sqlite/ivf-training
 * Training the SQLite store's IVF index (ivf.ts) in the knowledge worker pool.
 *
 * Training starts once the store holds `trainAt` chunks and has no centroids: a claim in
 * `{t}_meta` (pid and store, so a second store or process on the file does not train too), a
 * sample read in batches, k-means in the pool (ivf-kmeans.ts), the centroids published in one
 * transaction (only if nobody published first), and the existing rows assigned in batches
 * (read, assigned in the pool, written in a short transaction, yielding to the loop) until
 * none is left without a list; then the index is marked ready.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { processAlive } from '../../../util/process-alive.js';
import type { Offload } from '../../../workers/offload.js';
import { defineWorkerTask } from '../../../workers/task.js';
import { assignLists, trainCentroids, type AssignPayload, type TrainPayload } from './ivf-kmeans.js';
import { ASSIGN_BATCH, rowBatches, type Centroids } from './ivf-tables.js';
import { metaValue, setMeta } from './meta.js';

defineWorkerTask('ivf-train', import.meta.url, './ivf-kmeans.js', 'trainTask');
defineWorkerTask('ivf-assign', import.meta.url, './ivf-kmeans.js', 'assignTask');

/**
 * Sample vectors per list for k-means (enough for stable centroids), and a cap that bounds the
 * CPU: sample x lists x dims x iterations multiply-adds, ~10-40 s in one worker at 256-1024 lists.
 */
const SAMPLE_PER_LIST = 48;
const SAMPLE_MAX = 16_384;
const ITERATIONS = 10;

/** Runs a task in the pool, or inline when the process has no pool (KNOWLEDGE_WORKERS=0). */
export async function inPool<T>(offload: Offload, task: 'ivf-train' | 'ivf-assign', payload: TrainPayload | AssignPayload, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  if (offload === 'inline') return (task === 'ivf-train' ? trainCentroids(payload as TrainPayload) : assignLists(payload as AssignPayload)) as T;
  return offload.run<T>(task, payload, { label: `IVF ${task === 'ivf-train' ? 'training' : 'assignment'}`, timeoutMs: 600_000, signal });
}

/** What training needs of its index. */
export interface IvfTrainingHost {
  readonly db: () => Database.Database;
  readonly t: string;
  readonly settings: { readonly lists: number; readonly trainAt: number };
  readonly offload: () => Offload;
  /** Aborts when the store closes. */
  readonly signal: AbortSignal;
  /** This store's claim on training: the pid (so another process can tell a dead claimer) and a per-store tag. */
  readonly owner: string;
  /** The centroids of the current generation, as the index caches them. */
  centroids(db: Database.Database, key: 'ivf_generation'): Centroids | undefined;
  /** A training run starts (tests check a store trains once). */
  trainingStarted(): void;
}

/** Trains (or finishes an interrupted assignment) if this store may claim it; throws on failure, with the claim still held. */
export async function train(host: IvfTrainingHost): Promise<void> {
  const t = host.t;
  const claimed = host.db().transaction(() => {
    const db = host.db();
    if (metaValue(db, t, 'ivf_ready') !== undefined) return false;
    const owner = metaValue(db, t, 'ivf_training');
    if (owner !== undefined && owner !== host.owner && processAlive(Number(owner.split(':')[0]))) return false;
    const count = (db.prepare(`SELECT count(*) AS n FROM ${t}_chunks`).get() as { n: number }).n;
    if (count < host.settings.trainAt) return false;
    setMeta(db, t, 'ivf_training', host.owner);
    return true;
  }).immediate();
  if (!claimed) return;
  if (metaValue(host.db(), t, 'ivf_generation') === undefined) {
    host.trainingStarted();
    const sample = await sampleVectors(host);
    if (!sample) throw new Error('no vectors to train on');
    const data = await inPool<Float32Array>(host.offload(), 'ivf-train', { vectors: sample.vectors, dims: sample.dims, lists: host.settings.lists, iterations: ITERATIONS, seed: 1 }, host.signal);
    const published = host.db().transaction(() => {
      const db = host.db();
      if (metaValue(db, t, 'ivf_training') !== host.owner || metaValue(db, t, 'ivf_generation') !== undefined) return false;
      db.exec(`DELETE FROM ${t}_ivf_centroids; DELETE FROM ${t}_ivf_lists`);
      const insert = db.prepare(`INSERT INTO ${t}_ivf_centroids (list, centroid) VALUES (?, ?)`);
      const lists = data.length / sample.dims;
      for (let l = 0; l < lists; l++) insert.run(l, Buffer.from(data.buffer, data.byteOffset + l * sample.dims * 4, sample.dims * 4));
      setMeta(db, t, 'ivf_generation', `${Date.now()}-${host.owner}`);
      return true;
    }).immediate();
    if (!published) return;
  }
  await assignAll(host);
}

/** Releases this store's claim after a failed training, so a later write (or another process) tries again. */
export function releaseClaim(host: IvfTrainingHost): void {
  const db = host.db();
  db.transaction(() => {
    if (metaValue(db, host.t, 'ivf_training') === host.owner) db.prepare(`DELETE FROM ${host.t}_meta WHERE key = 'ivf_training'`).run();
  }).immediate();
}

/** A uniform sample of the stored vectors, read in rowid batches with yields between them. */
async function sampleVectors(host: IvfTrainingHost): Promise<{ vectors: Float32Array; dims: number } | undefined> {
  const t = host.t;
  const total = (host.db().prepare(`SELECT count(*) AS n FROM ${t}_chunks WHERE embedding IS NOT NULL`).get() as { n: number }).n;
  const want = Math.min(SAMPLE_MAX, host.settings.lists * SAMPLE_PER_LIST);
  const keep = Math.min(1, want / Math.max(1, total));
  const picked: Buffer[] = [];
  let state = 12345;
  const select = `SELECT rowid, embedding FROM ${t}_chunks WHERE rowid > ? AND embedding IS NOT NULL ORDER BY rowid LIMIT ${ASSIGN_BATCH}`;
  for await (const rows of rowBatches<[number | bigint, Buffer]>(host.db, select, host.signal)) {
    for (const [, blob] of rows) {
      // A fixed-seed LCG, so the same data trains the same centroids.
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      if (state / 4294967296 < keep) picked.push(blob);
    }
  }
  if (picked.length === 0) return undefined;
  const dims = picked[0]!.length / 4;
  const vectors = new Float32Array(picked.length * dims);
  let n = 0;
  for (const b of picked) if (b.length === dims * 4) vectors.set(new Float32Array(b.buffer, b.byteOffset, dims), dims * n++);
  return { vectors: vectors.subarray(0, n * dims), dims };
}

/**
 * The lists of a batch, split across the pool's workers: after training on a large store this
 * is the long part (100k vectors x 512 centroids), and the pool is otherwise idle then.
 */
async function assignSpread(host: IvfTrainingHost, c: Centroids, vectors: Float32Array): Promise<Int32Array> {
  const offload = host.offload();
  const count = vectors.length / c.dims;
  const parts = offload === 'inline' ? 1 : Math.max(1, Math.min(offload.size, Math.floor(count / 250)));
  const per = Math.ceil(count / parts);
  const results = await Promise.all(
    Array.from({ length: parts }, (_, p) =>
      inPool<Int32Array>(
        offload,
        'ivf-assign',
        // slice, not subarray: a view would post the whole batch's buffer to each worker.
        { centroids: c.data, vectors: vectors.slice(p * per * c.dims, Math.min(count, (p + 1) * per) * c.dims), dims: c.dims },
        host.signal,
      ),
    ),
  );
  const lists = new Int32Array(count);
  results.forEach((part, p) => lists.set(part, p * per));
  return lists;
}

/** Gives every vector without a list its list, in batches, then marks the index ready. */
async function assignAll(host: IvfTrainingHost): Promise<void> {
  const t = host.t;
  const generation = metaValue(host.db(), t, 'ivf_generation');
  const c = host.centroids(host.db(), 'ivf_generation');
  if (!c || generation === undefined) return;
  // Vectors of another length (none, since the store refuses them) would never get a list.
  const select = `SELECT c.rowid, c.embedding FROM ${t}_chunks c WHERE c.rowid > ? AND length(c.embedding) = ${c.dims * 4}
      AND NOT EXISTS (SELECT 1 FROM ${t}_ivf_lists l WHERE l.rowid = c.rowid) ORDER BY c.rowid LIMIT ${ASSIGN_BATCH}`;
  for (;;) {
    let last: number | bigint = -1;
    for (;;) {
      const rows = host.db().prepare(select).raw().all(last) as [number | bigint, Buffer][];
      if (rows.length > 0) {
        const vectors = new Float32Array(rows.length * c.dims);
        rows.forEach(([, b], i) => vectors.set(new Float32Array(b.buffer, b.byteOffset, c.dims), i * c.dims));
        const lists = await assignSpread(host, c, vectors);
        const current = host.db().transaction(() => {
          const db = host.db();
          // A reindex swapped the vectors meanwhile: these lists belong to old centroids.
          if (metaValue(db, t, 'ivf_generation') !== generation) return false;
          // OR IGNORE: a row inserted meanwhile got its list at insert; a row deleted meanwhile gets none.
          const insert = db.prepare(`INSERT OR IGNORE INTO ${t}_ivf_lists (rowid, list) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM ${t}_chunks WHERE rowid = ?)`);
          rows.forEach(([rowid], i) => insert.run(rowid, lists[i]!, rowid));
          return true;
        })();
        if (!current) return;
        last = rows[rows.length - 1]![0];
      }
      const more = rows.length > 0;
      await yieldToLoop();
      host.signal.throwIfAborted();
      if (!more) break;
    }
    // Ready only when nothing is left without a list, checked in the transaction that says so.
    const done = host.db().transaction(() => {
      const db = host.db();
      if (metaValue(db, t, 'ivf_generation') !== generation) return true;
      if (db.prepare(select).get(-1) !== undefined) return false;
      setMeta(db, t, 'ivf_ready', generation);
      db.prepare(`DELETE FROM ${t}_meta WHERE key = 'ivf_training'`).run();
      return true;
    }).immediate();
    if (done) return;
  }
}
