/**
 * @module knowledge/chunkers/agentic
 * Chunks whose break points a language model chooses (agno's AgenticChunking), through the
 * runtime's Model interface: the knowledge base's model, else the runtime's default.
 *
 * A document whose trimmed text fits in chunk_size is one chunk, with no model call. Otherwise
 * the model is shown a window of at most chunk_size characters and asked for the character
 * offsets where chunks should end (a JSON array; any integers in its answer are accepted). Each
 * offset is clamped to [1, window length] and snapped to the nearest paragraph break, else
 * sentence end, else space within a tolerance (a tenth of the window, at least 40 characters).
 * The text after the last break starts the next window; the final window's rest is the last
 * chunk. A break at the window's very end (the model saying it is all one topic) would cut
 * mid-sentence, so it is treated like no answer. An answer with no usable offset (garbage, an empty reply) falls back to a break at the
 * last paragraph break in the second half of the window, else the last sentence end, else the
 * last space, else the window's end. Model errors (unreachable, refused, cancelled) are not
 * papered over: they fail the insert, as the model's answer was what was asked for.
 *
 * Deliberate differences from agno: the text is not whitespace-flattened (paragraphs must stay
 * visible to snap to them), breaks are clamped to at least 1 (a 0 would loop forever), one call
 * may place several breaks, and chunks are slices of the original text trimmed at their edges.
 */
import type { Model } from '../../model/model.js';
import { badRequest } from '../../errors.js';
import type { Chunk, Document } from '../types.js';
import { DEFAULT_CHUNK_SIZE, defineChunker, sizeOptions, toChunks, type ChunkContext, type ChunkerOf } from './chunker.js';
import { delimiterBreaks, paragraphBreaks, trimSpan, type Span } from './spans.js';

export interface AgenticChunkerOptions {
  /** Maximum characters per chunk (agno's max_chunk_size); default 5000. */
  chunkSize?: number;
  /** Overrides the knowledge base's model. */
  model?: Model;
  /** Extra guidance for the model, e.g. what a good chunk of these documents holds. */
  instructions?: string;
}

export class AgenticChunker implements ChunkerOf<'AgenticChunker'> {
  readonly type = 'AgenticChunker' as const;
  readonly chunkSize: number;
  readonly instructions: string | undefined;
  private readonly model: Model | undefined;

  constructor(options: AgenticChunkerOptions = {}) {
    // As in agno: chunk_size is the maximum, and a given chunk_overlap is dropped.
    ({ chunkSize: this.chunkSize } = sizeOptions(this.type, { chunkSize: options.chunkSize ?? 5000 }));
    this.model = options.model;
    this.instructions = options.instructions;
  }

  async chunk(doc: Document, context: ChunkContext = {}): Promise<Chunk[]> {
    const model = this.model ?? context.model;
    if (!model) {
      throw badRequest('AgenticChunker needs a model to choose break points, and none is configured: give the Knowledge a `model`, or the runtime a default model');
    }
    const text = doc.content;
    const { start, end } = trimSpan(text, { start: 0, end: text.length });
    const spans: Span[] = [];
    let pos = start;
    while (end - pos > this.chunkSize) {
      context.signal?.throwIfAborted();
      const window = text.slice(pos, pos + this.chunkSize);
      const answer = await model.generate({
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: userPrompt(window, this.instructions) },
        ],
        temperature: 0,
        maxOutputTokens: 200,
        signal: context.signal,
      });
      // The window never reaches the end of the text here, so a break at its very end would cut
      // mid-sentence: that one (the model saying "all one topic") becomes the fallback break.
      const snapped = parseBreaks(answer.text, window.length).map((b) => snapBreak(window, b));
      const breaks = [...new Set(snapped.map((b) => (b === window.length ? fallbackBreak(window) : b)))].sort((a, b) => a - b);
      if (breaks.length === 0) breaks.push(fallbackBreak(window));
      let from = 0;
      for (const b of breaks) {
        spans.push({ start: pos + from, end: pos + b });
        from = b;
      }
      pos += from;
    }
    spans.push({ start: pos, end });
    return toChunks(
      doc,
      spans.map((s) => trimSpan(text, s)).map((s) => text.slice(s.start, s.end)),
    );
  }
}

/** As in agno, chunk_size applies and a given chunk_overlap is dropped. */
export const AGENTIC_CHUNKER = defineChunker({
  key: 'AgenticChunker',
  description: 'A language model chooses the break points, snapped to paragraphs or sentences',
  metadata: { chunk_size: DEFAULT_CHUNK_SIZE },
  needs: 'model',
  create: ({ chunkSize }) => new AgenticChunker(chunkSize !== undefined ? { chunkSize } : {}),
});

const SYSTEM_PROMPT = [
  'You split documents into chunks for a search index. Each chunk should hold one topic or one self-contained part of the text.',
  'You are given a text between <text> and </text>. Choose where chunks should end: character offsets counted from 0 at the first character after <text>.',
  'Answer with a JSON array of increasing integers and nothing else, e.g. [812, 1930]. Prefer offsets at paragraph breaks, then at sentence ends.',
  'If the whole text is one topic, answer with its length.',
].join('\n');

function userPrompt(window: string, instructions: string | undefined): string {
  const guidance = instructions ? `${instructions.trim()}\n\n` : '';
  return `${guidance}The text is ${window.length} characters long; every offset must be between 1 and ${window.length}.\n\n<text>${window}</text>`;
}

/** Integers from the model's answer (a JSON array, or any integers in prose), clamped to [1, max]. */
export function parseBreaks(answer: string, max: number): number[] {
  const array = /\[[\s\d,.-]*\]/.exec(answer);
  const source = array ? array[0] : answer;
  const numbers = [...source.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Math.round(Number(m[0]))).filter((n) => Number.isSafeInteger(n));
  return numbers.map((n) => Math.min(max, Math.max(1, n)));
}

/**
 * Moves a break to the nearest paragraph break within the tolerance, else the nearest sentence
 * end, else just after the nearest whitespace; clamped to [1, window length].
 */
export function snapBreak(window: string, at: number): number {
  const length = window.length;
  const tolerance = Math.max(40, Math.round(length * 0.1));
  const nearest = (candidates: readonly number[]) => {
    let best: number | undefined;
    for (const c of candidates) {
      if (c < 1 || c > length || Math.abs(c - at) > tolerance) continue;
      if (best === undefined || Math.abs(c - at) < Math.abs(best - at)) best = c;
    }
    return best;
  };
  const snapped = nearest(paragraphBreaks(window)) ?? nearest(delimiterBreaks(window)) ?? nearest(spaceBreaks(window, at, tolerance));
  return Math.min(length, Math.max(1, snapped ?? at));
}

/** Offsets right after a whitespace character, within `tolerance` of `at`. */
function spaceBreaks(window: string, at: number, tolerance: number): number[] {
  const out: number[] = [];
  for (let i = Math.max(0, at - tolerance - 1); i < Math.min(window.length, at + tolerance); i++) if (/\s/.test(window[i]!)) out.push(i + 1);
  return out;
}

/** Where to break when the model gave no usable offset: the last natural boundary in the window. */
export function fallbackBreak(window: string): number {
  const length = window.length;
  const paragraph = paragraphBreaks(window).findLast((b) => b >= length / 2);
  if (paragraph !== undefined) return paragraph;
  const sentence = delimiterBreaks(window).findLast((b) => b >= length / 4);
  if (sentence !== undefined) return sentence;
  for (let i = length - 1; i > 0; i--) if (/\s/.test(window[i]!)) return i + 1;
  return length;
}
