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

/** Characters a piece packs sentences up to (a longer sentence is a piece of its own). */
export const PIECE_CHARS = 300;

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
