/**
 * @module knowledge/chunkers/semantic
 * Chunks that end where the topic changes, found with the knowledge base's own embedder (after
 * chonkie's SemanticChunker, which agno uses):
 *
 * 1. The text is cut into sentences after `. `, `! `, `? ` and line breaks (the delimiter stays
 *    with its sentence); a sentence under `minCharactersPerSentence` joins the next one.
 * 2. For each position i, the window of `similarityWindow` sentences starting at i and the
 *    sentence right after it are embedded, and their cosine similarity taken.
 * 3. That series is smoothed with a Savitzky–Golay filter (`filterWindow` points, a polynomial of
 *    `filterPolyorder`); its local minima at or below `similarityThreshold` are topic breaks,
 *    kept at least `minSentencesPerChunk` sentences apart. A series shorter than the filter
 *    window gives no breaks (and no embedder call is made).
 * 4. A group of sentences longer than chunk_size is packed again by sentences, and a sentence
 *    longer than chunk_size is cut at line breaks or spaces: chunk_size is a hard maximum.
 *
 * Deliberate differences from agno: chunk_size counts characters (agno counts words when it
 * wraps its own embedders), and the text is not whitespace-flattened first, so line breaks act
 * as delimiters and chunks are slices of the original text (trimmed at their edges).
 *
 * There is no default embedder: without one (in the options or the Knowledge) chunking fails
 * with a BAD_REQUEST naming what is missing.
 */
import type { Embedder } from '../../model/embedder.js';
import { badRequest } from '../../errors.js';
import type { Chunk, Document } from '../types.js';
import { DEFAULT_CHUNK_SIZE, defineChunker, sizeOptions, toChunks, type ChunkContext, type ChunkerOf } from './chunker.js';
import { interpolatedMinima, savgol } from './savitzky-golay.js';
import { capSpans, packSpans, sentenceSpans, trimSpan, type Span } from './spans.js';

export interface SemanticChunkerOptions {
  /** Maximum characters per chunk; default 5000. */
  chunkSize?: number;
  /** Similarity at or below which a smoothed minimum is a topic break; default 0.5. */
  similarityThreshold?: number;
  /** Sentences compared with the next one; default 3. */
  similarityWindow?: number;
  /** Fewest sentences between two breaks; default 1. */
  minSentencesPerChunk?: number;
  /** Shorter sentences join the next one; default 24. */
  minCharactersPerSentence?: number;
  /** Savitzky–Golay window length (odd); default 5. */
  filterWindow?: number;
  /** Savitzky–Golay polynomial order (below the window); default 3. */
  filterPolyorder?: number;
  /** Overrides the knowledge base's embedder. */
  embedder?: Embedder;
}

export class SemanticChunker implements ChunkerOf<'SemanticChunker'> {
  readonly type = 'SemanticChunker' as const;
  readonly chunkSize: number;
  readonly similarityThreshold: number;
  readonly similarityWindow: number;
  readonly minSentencesPerChunk: number;
  readonly minCharactersPerSentence: number;
  readonly filterWindow: number;
  readonly filterPolyorder: number;
  private readonly embedder: Embedder | undefined;

  constructor(options: SemanticChunkerOptions = {}) {
    // No overlap: as in agno, a given chunk_overlap is dropped for this strategy.
    ({ chunkSize: this.chunkSize } = sizeOptions(this.type, { chunkSize: options.chunkSize ?? 5000 }));
    this.similarityThreshold = options.similarityThreshold ?? 0.5;
    this.similarityWindow = options.similarityWindow ?? 3;
    this.minSentencesPerChunk = options.minSentencesPerChunk ?? 1;
    this.minCharactersPerSentence = options.minCharactersPerSentence ?? 24;
    this.filterWindow = options.filterWindow ?? 5;
    this.filterPolyorder = options.filterPolyorder ?? 3;
    this.embedder = options.embedder;
    if (!Number.isFinite(this.similarityThreshold)) throw badRequest('SemanticChunker: similarityThreshold must be a number');
    integer('similarityWindow', this.similarityWindow, 1);
    integer('minSentencesPerChunk', this.minSentencesPerChunk, 1);
    integer('minCharactersPerSentence', this.minCharactersPerSentence, 0);
    integer('filterWindow', this.filterWindow, 3);
    integer('filterPolyorder', this.filterPolyorder, 0);
    if (this.filterWindow % 2 === 0 || this.filterPolyorder >= this.filterWindow) {
      throw badRequest(`SemanticChunker: filterWindow must be odd and larger than filterPolyorder (got ${this.filterWindow} and ${this.filterPolyorder})`);
    }
  }

  async chunk(doc: Document, context: ChunkContext = {}): Promise<Chunk[]> {
    const embedder = this.embedder ?? context.embedder;
    if (!embedder) {
      throw badRequest('SemanticChunker needs an embedder to compare sentences, and none is configured: give the Knowledge an `embedder` (or the chunker one)');
    }
    const text = doc.content;
    const sentences = withContent(text, sentenceSpans(text, this.minCharactersPerSentence));
    const breaks = await this.topicBreaks(text, sentences, embedder, context.signal);
    const groups: Span[] = [];
    let first = 0;
    for (const at of [...breaks, sentences.length]) {
      const members = sentences.slice(first, at);
      first = at;
      if (members.length === 0) continue;
      const group = { start: members[0]!.start, end: members.at(-1)!.end };
      groups.push(...(group.end - group.start <= this.chunkSize ? [group] : packSpans(capSpans(text, members, this.chunkSize), this.chunkSize)));
    }
    return toChunks(
      doc,
      groups.map((g) => trimSpan(text, g)).map((s) => text.slice(s.start, s.end)),
    );
  }

  /** Indices of the sentences that start a new topic, ascending. */
  async topicBreaks(text: string, sentences: readonly Span[], embedder: Embedder, signal: AbortSignal | undefined): Promise<number[]> {
    const w = this.similarityWindow;
    const points = sentences.length - w;
    if (points < this.filterWindow) return [];
    const slice = (from: number, to: number) => text.slice(sentences[from]!.start, sentences[to - 1]!.end).trim();
    const pairs = Array.from({ length: points }, (_, i) => [slice(i, i + w), slice(i + w, i + w + 1)] as const);
    // Identical texts (repeated sentences, overlapping windows) are embedded once.
    const unique = [...new Set(pairs.flat())];
    const vectors = await embedder.embed(unique, signal);
    const vectorOf = new Map(unique.map((t, i) => [t, vectors[i]!]));
    const similarities = pairs.map(([a, b]) => cosine(vectorOf.get(a)!, vectorOf.get(b)!));
    const smooth = savgol(similarities, this.filterWindow, this.filterPolyorder, 0);
    const slope = savgol(similarities, this.filterWindow, this.filterPolyorder, 1);
    const breaks: number[] = [];
    let previous = 0;
    for (const { at, value } of interpolatedMinima(smooth, slope)) {
      if (value > this.similarityThreshold) continue;
      // A low similarity at point i separates sentence i+w-1 from sentence i+w.
      const start = Math.round(at) + w;
      if (start - previous < this.minSentencesPerChunk || sentences.length - start < this.minSentencesPerChunk) continue;
      breaks.push(start);
      previous = start;
    }
    return breaks;
  }
}

/** As in agno, chunk_size applies and a given chunk_overlap is dropped. */
export const SEMANTIC_CHUNKER = defineChunker({
  key: 'SemanticChunker',
  description: 'Breaks where the topic changes, by embedding similarity of sentences',
  metadata: { chunk_size: DEFAULT_CHUNK_SIZE },
  needs: 'embedder',
  create: ({ chunkSize }) => new SemanticChunker(chunkSize !== undefined ? { chunkSize } : {}),
});

/** Sentences made only of whitespace join the one before (or, at the start, the one after). */
function withContent(text: string, spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  let pending: number | undefined;
  for (const span of spans) {
    const blank = text.slice(span.start, span.end).trim().length === 0;
    if (blank && out.length > 0) out.at(-1)!.end = span.end;
    else if (blank) pending ??= span.start;
    else {
      out.push({ start: pending ?? span.start, end: span.end });
      pending = undefined;
    }
  }
  return out;
}

function integer(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw badRequest(`SemanticChunker: ${name} must be an integer of at least ${min} (got ${value})`);
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
