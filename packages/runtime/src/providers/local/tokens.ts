/**
 * @module providers/local/tokens
 * Tokenizing long texts for the sentence encoder in linear time.
 *
 * The encoder's tokenizer (@energetic-ai/embeddings, a port of TensorFlow.js's USE tokenizer)
 * copies the rest of the text at every character (`symbols.slice(i)`), so its cost grows with
 * the square of the length: measured here, 70 ms at 2,000 characters, 1.3 s at 20,000, 10.7 s at
 * 40,000. It marks word starts with `▁` (every space becomes one, and one is put in front), and
 * no piece of its vocabulary holds a `▁` other than as its first symbol, so every tokenization
 * breaks at each `▁`: tokenizing the text in pieces cut at spaces and joining the results gives
 * the tokens of the whole (up to ties between equally scored splits, which the whole text's
 * float sums may break the other way). A piece of more than `max` characters without a space
 * is cut where it reaches `max`, which adds a word start there: only text with no spaces for
 * that long (a hash, base64) is tokenized otherwise than whole.
 */
import { cutBeforeLowSurrogate } from '../../util/utf8-slices.js';

/** Splits no text shorter than this; the tokenizer's quadratic term is small below it. */
export const SEGMENT_CHARS = 256;

/** The id of the unknown piece, whose runs the tokenizer merges into one. */
const UNKNOWN = 0;

/**
 * The tokens of `text`, from `encode` (the library's tokenizer, which normalises with NFKC
 * itself) applied to pieces of at most about `max` characters.
 */
export function encodeInSegments(text: string, encode: (text: string) => number[], max = SEGMENT_CHARS): number[] {
  // NFKC first: it turns some characters (a no-break space) into the spaces the cuts are made at.
  const s = text.normalize('NFKC');
  if (s.length <= max) return encode(s);
  const tokens: number[] = [];
  let start = 0;
  while (s.length - start > max) {
    // A cut at a space with text on both sides: `a b` tokenizes as `a` then `b` (each gets its `▁`).
    let cut = s.lastIndexOf(' ', Math.min(start + max, s.length - 2));
    let skip = 1;
    if (cut <= start) {
      // Not between the two halves of a surrogate pair, which would make two unknown symbols.
      cut = cutBeforeLowSurrogate(s, start + max);
      skip = 0;
    }
    append(tokens, encode(s.slice(start, cut)));
    start = cut + skip;
  }
  append(tokens, encode(s.slice(start)));
  return tokens;
}

/** Appends, merging a run of unknown tokens across the join as the tokenizer does within a text. */
function append(tokens: number[], more: number[]): void {
  for (const id of more) {
    if (id === UNKNOWN && tokens.at(-1) === UNKNOWN) continue;
    tokens.push(id);
  }
}
