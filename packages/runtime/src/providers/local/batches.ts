/**
 * @module providers/local/batches
 * What the local embedder sends its workers, and how their answers become vectors. A text is
 * capped at MAX_TEXT_CHARS and cut in parts of at most PART_CHARS (sentences.ts), so that no
 * batch holds a worker for long; consecutive parts are packed into batches of at most
 * `maxTexts` parts and `maxChars` characters. The worker answers each part's sum of piece
 * vectors; a text's vector is the sum over its parts, normalised, i.e. the mean over all its
 * pieces. Planning runs on the event loop, so it yields every few ms (util/time-slicer).
 */
import { TimeSlicer } from '../../util/time-slicer.js';
import { cutBeforeLowSurrogate } from '../../util/utf8-slices.js';
import { partsOf } from './sentences.js';

/** Characters of a text that are embedded. */
export const MAX_TEXT_CHARS = 20_000;

/** One part of one text, as a batch carries it. */
export interface Unit {
  /** The text's index in the caller's list. */
  text: number;
  part: string;
  /** How many parts the text was cut into. */
  parts: number;
}

/** A text as sent: at most MAX_TEXT_CHARS characters; an empty text as a space (the model refuses a text without tokens). */
export function prepare(text: string): string {
  if (text.length === 0) return ' ';
  if (text.length <= MAX_TEXT_CHARS) return text;
  return text.slice(0, cutBeforeLowSurrogate(text, MAX_TEXT_CHARS));
}

/** The texts' parts in batches of at most `maxTexts` parts and `maxChars` characters (a longer part alone). */
export async function planBatches(texts: readonly string[], maxTexts: number, maxChars: number, slicer = new TimeSlicer()): Promise<Unit[][]> {
  const batches: Unit[][] = [];
  let current: Unit[] = [];
  let chars = 0;
  for (const [i, text] of texts.entries()) {
    if ((i & 63) === 0 && slicer.due()) await slicer.yield();
    const parts = partsOf(prepare(text));
    for (const part of parts) {
      if (current.length > 0 && (current.length >= maxTexts || chars + part.length > maxChars)) {
        batches.push(current);
        current = [];
        chars = 0;
      }
      current.push({ text: i, part, parts: parts.length });
      chars += part.length;
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Gathers the worker's sums into one normalised vector per text. */
export class Gatherer {
  readonly #vectors: number[][];
  /** Texts of several parts, their sum so far and the parts still to come. */
  readonly #open = new Map<number, { sum: Float64Array; left: number }>();

  constructor(
    count: number,
    private readonly dimensions: number,
  ) {
    this.#vectors = Array.from({ length: count }, () => []);
  }

  /** The sums the worker answered for `batch`, one row of `dimensions` per unit. */
  add(batch: readonly Unit[], sums: Float32Array): void {
    const d = this.dimensions;
    for (const [k, unit] of batch.entries()) {
      const row = sums.subarray(k * d, (k + 1) * d);
      if (unit.parts === 1) {
        this.#vectors[unit.text] = normalised(row);
        continue;
      }
      const open = this.#open.get(unit.text) ?? { sum: new Float64Array(d), left: unit.parts };
      for (let i = 0; i < d; i++) open.sum[i]! += row[i]!;
      open.left--;
      if (open.left > 0) this.#open.set(unit.text, open);
      else {
        this.#open.delete(unit.text);
        this.#vectors[unit.text] = normalised(open.sum);
      }
    }
  }

  vectors(): number[][] {
    return this.#vectors;
  }
}

function normalised(sum: ArrayLike<number>): number[] {
  let norm = 0;
  for (let i = 0; i < sum.length; i++) norm += sum[i]! * sum[i]!;
  norm = Math.sqrt(norm) || 1;
  return Array.from(sum, (x) => x / norm);
}
