/**
 * @module providers/local/sentences
 * How the local encoder reads a passage: a few sentences at a time. The Universal Sentence
 * Encoder was trained on sentences and short paragraphs; a chunk of several hundred words
 * becomes one blurred vector. A passage's vector is the mean of the vectors of its pieces
 * (consecutive sentences packed up to `PIECE_CHARS`), normalised. Measured on a sample of
 * SciFact (150 claims, 787 abstracts, vector search alone, nDCG@10): the whole abstract 0.389;
 * pieces of one sentence 0.492; of up to 300 characters 0.510; of up to 600 characters 0.439.
 * Mean-centring the vectors lowered the scores (0.385 whole, 0.459 by sentence), so it is not
 * done.
 *
 * A sentence ends at a line break, or after `.`, `!` or `?` followed by white space. Pieces
 * with no letter or digit (a markdown rule, a table's `|`) are left out; a text with nothing
 * else is read whole.
 */
import { cutBeforeLowSurrogate } from '../../util/utf8-slices.js';

/** Characters a piece packs sentences up to (a longer sentence is a piece of its own). */
export const PIECE_CHARS = 300;

/**
 * Characters of a passage one batch holds at most (about a third of a second of a worker's
 * time): a longer passage is cut into parts, encoded in batches of their own, and its vector is
 * the mean over all their pieces. A search's query then never waits for more than one part.
 */
export const PART_CHARS = 2_000;

const CUT = /\r?\n+|(?<=[.!?])\s+/;
const WORDLIKE = /[\p{L}\p{N}]/u;

export function sentencesOf(text: string): string[] {
  const sentences = text
    .split(CUT)
    .map((sentence) => sentence.trim())
    .filter((sentence) => WORDLIKE.test(sentence));
  return sentences.length > 0 ? sentences : [text];
}

/** The pieces of `text` the encoder embeds: its sentences, consecutive ones joined up to `max` characters. */
export function piecesOf(text: string, max = PIECE_CHARS): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const sentence of sentencesOf(text)) {
    if (current !== '' && current.length + 1 + sentence.length > max) {
      pieces.push(current);
      current = sentence;
    } else {
      current = current === '' ? sentence : `${current} ${sentence}`;
    }
  }
  pieces.push(current);
  return pieces;
}

/**
 * `text` in parts of at most `max` characters, cut at the last line break in the second half of
 * the window, else after the last sentence end there, else at the last space there, else at
 * `max` (never between the halves of a surrogate pair); parts of white space only are left out.
 * Linear in the text's length.
 */
export function partsOf(text: string, max = PART_CHARS): string[] {
  const parts: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    const end = start + max;
    const floor = start + Math.floor(max / 2);
    let cut = text.lastIndexOf('\n', end - 1) + 1;
    if (cut <= floor) cut = sentenceEnd(text, floor, end);
    if (cut <= floor) cut = text.lastIndexOf(' ', end - 1) + 1;
    if (cut <= floor) {
      cut = cutBeforeLowSurrogate(text, end);
    }
    parts.push(text.slice(start, cut));
    start = cut;
  }
  parts.push(text.slice(start));
  const worded = parts.filter((part) => part.trim() !== '');
  return worded.length > 0 ? worded : [text];
}

/** Just after the last `.`, `!` or `?` followed by white space in [from, to), or -1. */
function sentenceEnd(text: string, from: number, to: number): number {
  for (let i = to - 2; i >= from; i--) {
    const c = text.charCodeAt(i);
    if ((c === 46 || c === 33 || c === 63) && /\s/.test(text[i + 1]!)) return i + 1;
  }
  return -1;
}
