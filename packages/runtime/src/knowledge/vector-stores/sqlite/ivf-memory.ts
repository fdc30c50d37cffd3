/**
 * @module knowledge/vector-stores/sqlite/ivf-memory
 * The IVF lists' vectors held in memory as int8 codes, scored in JavaScript.
 *
 * A search scores the probed lists here and asks SQLite only for the best candidates (exact
 * cosine, visibility, filter).
 *
 * Why: in SQL each probed row costs ~1.2-2 µs (a rowid lookup and sqlite-vec's cosine), so the
 * probes real embeddings need for recall@10 >= 0.95 (about a tenth of the lists, measured with a
 * real sentence encoder in bench/knowledge-ivf-real.ts) took 15-45 ms at 30k-100k chunks. A
 * code is one byte a dimension (a quarter of the float32 vector: ~40 MB for 100k 384-d chunks)
 * and scores at ~0.3 µs a row here. Scores are approximate (int8), which is why more candidates
 * than asked for are taken and ranked again exactly in SQL.
 *
 * The owner (ivf.ts) keeps it in step with its own connection's writes (`add`/`remove`,
 * both idempotent, so a load racing a write ends right) and drops it when another connection
 * wrote (SQLite's `data_version`) or the centroids changed; a search without it uses SQL alone.
 */

interface ListBlock {
  rowids: Float64Array;
  codes: Int8Array;
  /** Per row: max|v| / 127 / |v|, so code · query x scale is the cosine times |query|. */
  scales: Float32Array;
  n: number;
}

const INITIAL_CAPACITY = 16;

export class IvfMemory {
  private readonly blocks: ListBlock[];
  private readonly where = new Map<number, { list: number; slot: number }>();

  constructor(
    readonly generation: string,
    readonly dims: number,
    lists: number,
  ) {
    this.blocks = Array.from({ length: lists }, () => ({ rowids: new Float64Array(0), codes: new Int8Array(0), scales: new Float32Array(0), n: 0 }));
  }

  get size(): number {
    return this.where.size;
  }

  /** Puts `rowid` in `list` with `vector` (replacing what it had: a rowid may be reused). */
  add(rowid: number, list: number, vector: ArrayLike<number>): void {
    if (vector.length !== this.dims || list < 0 || list >= this.blocks.length) return;
    this.remove(rowid);
    const block = this.blocks[list]!;
    if (block.n === block.rowids.length) grow(block, this.dims);
    const slot = block.n++;
    let max = 0;
    let norm = 0;
    for (let d = 0; d < this.dims; d++) {
      const x = vector[d]!;
      norm += x * x;
      if (Math.abs(x) > max) max = Math.abs(x);
    }
    const at = slot * this.dims;
    const k = max === 0 ? 0 : 127 / max;
    for (let d = 0; d < this.dims; d++) block.codes[at + d] = Math.round(vector[d]! * k);
    block.scales[slot] = max === 0 || norm === 0 ? 0 : max / 127 / Math.sqrt(norm);
    block.rowids[slot] = rowid;
    this.where.set(rowid, { list, slot });
  }

  remove(rowid: number): void {
    const place = this.where.get(rowid);
    if (!place) return;
    this.where.delete(rowid);
    const block = this.blocks[place.list]!;
    const last = --block.n;
    if (place.slot !== last) {
      // The last row takes the freed slot.
      const moved = block.rowids[last]!;
      block.rowids[place.slot] = moved;
      block.scales[place.slot] = block.scales[last]!;
      block.codes.copyWithin(place.slot * this.dims, last * this.dims, (last + 1) * this.dims);
      this.where.set(moved, { list: place.list, slot: place.slot });
    }
  }

  /** The rowids of the `count` best-scoring rows of `lists` for `query`, best first. */
  candidates(query: Float32Array, lists: readonly number[], count: number): number[] {
    const dims = this.dims;
    const heap = new TopK(count);
    for (const list of lists) {
      const block = this.blocks[list];
      if (!block) continue;
      const { codes, scales, rowids } = block;
      for (let slot = 0; slot < block.n; slot++) {
        const at = slot * dims;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let d = 0;
        for (; d + 4 <= dims; d += 4) {
          s0 += codes[at + d]! * query[d]!;
          s1 += codes[at + d + 1]! * query[d + 1]!;
          s2 += codes[at + d + 2]! * query[d + 2]!;
          s3 += codes[at + d + 3]! * query[d + 3]!;
        }
        for (; d < dims; d++) s0 += codes[at + d]! * query[d]!;
        heap.offer((s0 + s1 + s2 + s3) * scales[slot]!, rowids[slot]!);
      }
    }
    return heap.sorted();
  }
}

function grow(block: ListBlock, dims: number): void {
  const capacity = Math.max(INITIAL_CAPACITY, block.rowids.length * 2);
  const rowids = new Float64Array(capacity);
  rowids.set(block.rowids);
  const codes = new Int8Array(capacity * dims);
  codes.set(block.codes);
  const scales = new Float32Array(capacity);
  scales.set(block.scales);
  block.rowids = rowids;
  block.codes = codes;
  block.scales = scales;
}

/** The `k` largest scores seen, in a min-heap (the root is the one to beat). */
class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.scores = new Float64Array(k);
    this.ids = new Float64Array(k);
  }

  offer(score: number, id: number): void {
    if (this.k === 0) return;
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.scores[parent]! <= score) break;
        this.scores[i] = this.scores[parent]!;
        this.ids[i] = this.ids[parent]!;
        i = parent;
      }
      this.scores[i] = score;
      this.ids[i] = id;
      return;
    }
    if (score <= this.scores[0]!) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.n) break;
      const right = left + 1;
      const child = right < this.n && this.scores[right]! < this.scores[left]! ? right : left;
      if (this.scores[child]! >= score) break;
      this.scores[i] = this.scores[child]!;
      this.ids[i] = this.ids[child]!;
      i = child;
    }
    this.scores[i] = score;
    this.ids[i] = id;
  }

  sorted(): number[] {
    const order = Array.from({ length: this.n }, (_, i) => i);
    order.sort((a, b) => this.scores[b]! - this.scores[a]!);
    return order.map((i) => this.ids[i]!);
  }
}
