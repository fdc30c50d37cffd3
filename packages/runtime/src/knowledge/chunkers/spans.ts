/**
 * @module knowledge/chunkers/spans
 * Lossless text splitting shared by the code, semantic and agentic chunkers. They work on
 * spans (`[start, end)` offsets into the original text) rather than on copies, so the pieces
 * they cut always add up to the text they were given and a chunk's position is known.
 */

/** Half-open range of UTF-16 offsets into a text. */
export interface Span {
  start: number;
  end: number;
}

/** The sentence delimiters of chonkie's SemanticChunker; each stays with the sentence before it. */
export const SENTENCE_DELIMITERS: readonly string[] = ['. ', '! ', '? ', '\n'];

/** Offsets just after every sentence delimiter, in order (never 0 or text.length). */
export function delimiterBreaks(text: string, delimiters: readonly string[] = SENTENCE_DELIMITERS): number[] {
  const breaks: number[] = [];
  for (let i = 0; i < text.length; i++) {
    for (const d of delimiters) {
      if (text.startsWith(d, i)) {
        const at = i + d.length;
        if (at < text.length && breaks.at(-1) !== at) breaks.push(at);
        break;
      }
    }
  }
  return breaks;
}

/**
 * Sentences as spans that cover the text exactly: the text is cut after each delimiter, and a
 * piece shorter than `minChars` is joined to the one after it (a short last piece joins the one
 * before), as chonkie's min_characters_per_sentence does.
 */
export function sentenceSpans(text: string, minChars = 24, delimiters: readonly string[] = SENTENCE_DELIMITERS): Span[] {
  if (text.length === 0) return [];
  const spans: Span[] = [];
  let start = 0;
  for (const at of [...delimiterBreaks(text, delimiters), text.length]) {
    if (at - start < minChars && at < text.length) continue;
    if (at - start < minChars && spans.length > 0) {
      spans.at(-1)!.end = at;
    } else {
      spans.push({ start, end: at });
    }
    start = at;
  }
  return spans;
}

/** Offsets where a paragraph starts after a blank line (a line break, optional spaces, a line break). */
export function paragraphBreaks(text: string): number[] {
  const breaks: number[] = [];
  for (const m of text.matchAll(/\n[ \t]*\n\s*/g)) {
    const at = m.index + m[0].length;
    if (at < text.length) breaks.push(at);
  }
  return breaks;
}

const WHITESPACE = /\s/;

/** Moves a cut off the middle of a surrogate pair, so no chunk holds half a character. */
function safeCut(text: string, at: number, min: number): number {
  const code = text.charCodeAt(at - 1);
  if (at > min + 1 && code >= 0xd800 && code <= 0xdbff) return at - 1;
  return at;
}

/**
 * Cuts `[start, end)` into spans of at most `size` characters: each ends after the last blank
 * line in its window when that keeps at least half the window, else after the last line break,
 * else after the last whitespace, else hard at the size (never inside a surrogate pair).
 */
export function splitSpan(text: string, start: number, end: number, size: number): Span[] {
  const spans: Span[] = [];
  let from = start;
  while (end - from > size) {
    const limit = from + size;
    const window = text.slice(from, limit);
    let cut = -1;
    for (const m of window.matchAll(/\n[ \t]*\n/g)) if (m.index >= size / 2) cut = from + m.index + m[0].length;
    if (cut < 0) {
      const newline = window.lastIndexOf('\n');
      if (newline > 0) cut = from + newline + 1;
    }
    if (cut < 0) {
      for (let i = limit - 1; i > from; i--) {
        if (WHITESPACE.test(text[i]!)) {
          cut = i + 1;
          break;
        }
      }
    }
    if (cut < 0) cut = safeCut(text, limit, from);
    spans.push({ start: from, end: cut });
    from = cut;
  }
  if (end > from) spans.push({ start: from, end });
  return spans;
}

/** The span without whitespace at either edge (empty when it holds only whitespace). */
export function trimSpan(text: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && WHITESPACE.test(text[start]!)) start++;
  while (end > start && WHITESPACE.test(text[end - 1]!)) end--;
  return { start, end };
}

/** Splits each span that is longer than `size` with splitSpan; others pass through. */
export function capSpans(text: string, spans: readonly Span[], size: number): Span[] {
  return spans.flatMap((s) => (s.end - s.start > size ? splitSpan(text, s.start, s.end, size) : [s]));
}

/**
 * Greedily joins adjacent spans while the joined span stays within `size` characters; spans
 * must be contiguous and in order. A span longer than `size` is passed through as it is.
 */
export function packSpans(spans: readonly Span[], size: number): Span[] {
  const out: Span[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && last.end === span.start && span.end - last.start <= size) last.end = span.end;
    else out.push({ ...span });
  }
  return out;
}
