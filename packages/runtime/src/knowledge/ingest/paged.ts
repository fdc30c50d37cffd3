/**
 * @module knowledge/ingest/paged
 * Page-aware chunking for readers whose documents are the parts of one source (PDF pages, deck
 * slides; `Reader.pagedBy` names the metadata key that numbers them). The parts are joined into
 * one text (separated by a blank line) and chunked once, so a chunk can run across a page break
 * instead of every page ending its own chunk; each chunk is then stamped with the parts it
 * covers:
 *
 * - `{key}_start` and `{key}_end` (`page_start`/`page_end`, `slide_start`/`slide_end`), always;
 * - `{key}` (`page`, `slide`) too when the chunk lies on one part, as before this existed;
 * - reader metadata that all the covered parts share.
 *
 * This works for any chunker without its help. A chunk is located in the joined text by
 * content: first as a whole, whitespace-insensitively (chunkers flatten whitespace), searching
 * from where the previous chunk started (chunks come in order, overlap moves back at most to
 * there); if a chunker rewrote the text (overlap glued to the next piece, a heading repeated in
 * each piece), by its first and last runs of words that do occur. A chunk whose words cannot be
 * found at all gets the part after its predecessor's start: an estimate, never a missing range.
 *
 * The joined document's id is the source's (`guide`, not `guide_1`), so chunk ids are
 * `{source}_{n}`, unique within the content and stable across re-ingestion.
 */
import type { TimeSlicer } from '../../util/time-slicer.js';
import type { Chunk, Document, Metadata } from '../types.js';

/** Between two parts in the joined text: a paragraph break, which paragraph packers honour. */
export const PART_SEPARATOR = '\n\n';

interface Part {
  number: number;
  /** [start, end) in the normalised joined text. */
  start: number;
  end: number;
  meta: Metadata;
}

export interface JoinedParts {
  document: Document;
  key: string;
  parts: Part[];
  /** The joined text with every whitespace run as one space; chunks are located in it. */
  normalised: string;
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Joins the parts into one document, or returns undefined when they are not parts of one
 * source (a document without a numeric `meta_data[key]`): those are chunked one by one.
 */
export function joinParts(documents: readonly Document[], key: string, sourceId: string | undefined): JoinedParts | undefined {
  if (documents.length === 0) return undefined;
  if (!documents.every((d) => typeof d.meta_data[key] === 'number' && Number.isInteger(d.meta_data[key]))) return undefined;
  const parts: Part[] = [];
  let normalised = '';
  for (const doc of documents) {
    const text = normalise(doc.content);
    if (!text) continue;
    if (normalised) normalised += ' ';
    const { [key]: number, ...meta } = doc.meta_data;
    parts.push({ number: number as number, start: normalised.length, end: normalised.length + text.length, meta });
    normalised += text;
  }
  if (parts.length === 0) return undefined;
  const first = documents[0]!;
  const document: Document = {
    content: documents.map((d) => d.content.trim()).filter(Boolean).join(PART_SEPARATOR),
    name: first.name,
    id: sourceId ?? first.name ?? first.id,
    meta_data: shared(parts.map((p) => p.meta)),
  };
  return { document, key, parts, normalised };
}

/** Stamps each chunk of the joined document with the parts it covers. */
export function stampParts(joined: JoinedParts, chunks: readonly Chunk[]): Chunk[] {
  const stamp = stamper(joined);
  return chunks.map(stamp);
}

/** `stampParts`, yielding to the event loop whenever `slicer`'s slice is used up. */
export async function stampPartsSliced(joined: JoinedParts, chunks: readonly Chunk[], slicer: TimeSlicer): Promise<Chunk[]> {
  const stamp = stamper(joined);
  const out: Chunk[] = [];
  for (let i = 0; i < chunks.length; i++) {
    if ((i & 15) === 0) await slicer.pause();
    out.push(stamp(chunks[i]!));
  }
  return out;
}

/**
 * Stamps chunks in order. Chunks start in order (each is looked for from its predecessor's
 * start), so the first part a chunk can cover only moves forward: finding the covered parts
 * costs their number, not all the parts (a deck of 1,000 slides was a scan of all of them per
 * chunk).
 */
function stamper(joined: JoinedParts): (chunk: Chunk) => Chunk {
  const { key, parts, normalised } = joined;
  let cursor = 0;
  let reached = 0;
  let first = 0;
  return (chunk) => {
    const range = locate(normalised, normalise(chunk.content), cursor, reached);
    cursor = range.start;
    reached = Math.max(reached, range.end);
    while (first < parts.length - 1 && parts[first]!.end <= range.start) first++;
    const covered: Part[] = [];
    for (let p = first; p < parts.length && parts[p]!.start < range.end; p++) if (parts[p]!.end > range.start) covered.push(parts[p]!);
    // In a gap between parts (or past the end): the part after it, else the last.
    if (covered.length === 0) covered.push(parts[first]!);
    const firstNumber = covered[0]!.number;
    const last = covered.at(-1)!.number;
    const stamp: Metadata = { ...shared(covered.map((p) => p.meta)), [`${key}_start`]: firstNumber, [`${key}_end`]: last };
    if (firstNumber === last) stamp[key] = firstNumber;
    // The chunker's metadata (the joined document's, the caller's, chunk and chunk_size) wins.
    return { ...chunk, meta_data: { ...stamp, ...chunk.meta_data } };
  };
}

/** The metadata every one of the parts has with the same value. */
function shared(metas: readonly Metadata[]): Metadata {
  const [first, ...rest] = metas;
  if (!first) return {};
  const out: Metadata = {};
  for (const [k, v] of Object.entries(first)) {
    if (rest.every((m) => k in m && JSON.stringify(m[k]) === JSON.stringify(v))) out[k] = v;
  }
  return out;
}

const WINDOW_WORDS = 6;
const MAX_PROBES = 24;

/**
 * Where a (normalised) chunk lies in the normalised text. Chunks come in order, and overlap
 * moves a chunk back at most to its predecessor's start, so the search starts there and looks
 * first in a window about the chunk's size (keeping a large file linear), then in the rest.
 * Each chunk also covers text past where its predecessors reached (`reached`): in repeated text
 * (a deck listing one slide a thousand times) the first verbatim match after the predecessor's
 * start can lie wholly inside the predecessor, so a later match ending past it is preferred.
 */
function locate(text: string, chunk: string, from: number, reached: number): { start: number; end: number } {
  if (!chunk) return { start: from, end: from };
  const span = 2 * chunk.length + 20_000;
  const find = (needle: string, at: number): number => {
    const near = text.slice(at, at + span + needle.length).indexOf(needle);
    return near >= 0 ? at + near : text.indexOf(needle, at + span);
  };
  let whole = find(chunk, from);
  // Matches ending by `reached` start within the predecessor's span, so there are few of them.
  for (let later = whole; later >= 0 && whole + chunk.length <= reached; ) {
    later = find(chunk, whole + 1);
    if (later >= 0) whole = later;
  }
  if (whole >= 0) return { start: whole, end: whole + chunk.length };

  // Not a verbatim slice: anchor the start and the end on runs of words that are.
  const words = chunk.split(' ');
  const size = Math.min(WINDOW_WORDS, words.length);
  let start = -1;
  let skipped = 0;
  for (let i = 0; i + size <= words.length && i < MAX_PROBES; i++) {
    const at = find(words.slice(i, i + size).join(' '), from);
    if (at >= 0) {
      // Words before the anchor lie just before it when they are overlap glued on from the
      // previous chunk (the text there ends like them); a repeated heading does not.
      const before = words.slice(0, i).join(' ');
      start = before && endsAlike(text.slice(0, at).trimEnd(), before) ? Math.max(from, at - skipped) : at;
      break;
    }
    skipped += words[i]!.length + 1;
  }
  if (start < 0) return { start: from, end: Math.min(text.length, from + chunk.length) };
  for (let j = words.length; j - size >= 0 && words.length - j < MAX_PROBES; j--) {
    const run = words.slice(j - size, j).join(' ');
    // Looked for about where it sits in the chunk, so an earlier repeat of it is not taken.
    const at = find(run, Math.max(start, start + chunk.lastIndexOf(run) - Math.ceil(chunk.length / 4)));
    if (at >= 0) return { start, end: at + run.length };
  }
  return { start, end: Math.min(text.length, start + chunk.length) };
}

/** Whether two texts end with the same few characters (at least 3, or all of the shorter). */
function endsAlike(a: string, b: string): boolean {
  const need = Math.min(3, a.length, b.length);
  let same = 0;
  while (same < need && a[a.length - 1 - same] === b[b.length - 1 - same]) same++;
  return need > 0 && same === need;
}
