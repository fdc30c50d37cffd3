/**
 * @module knowledge/chunkers/markdown
 * Markdown-aware chunks. The text is cut into sections at heading lines (never inside a fenced
 * code block). By default sections are packed into chunks of at most chunk_size characters;
 * with `splitOnHeadings` every section (down to that heading level) is its own chunk, and a
 * section too large is split by paragraphs with its heading repeated on each piece.
 */
import type { Chunk, Document } from '../types.js';
import { SIZED_DEFAULTS, defineChunker, pack, sizeOptions, splitWords, toChunks, withOverlap, type ChunkerOf, type SizeOptions } from './chunker.js';

export interface MarkdownChunkerOptions extends SizeOptions {
  /** `true` splits on every heading level, a number 1-6 on levels up to it; default false. */
  splitOnHeadings?: boolean | number;
}

interface Section {
  heading: string | undefined;
  text: string;
}

export class MarkdownChunker implements ChunkerOf<'MarkdownChunker'> {
  readonly type = 'MarkdownChunker' as const;
  readonly chunkSize: number;
  readonly overlap: number;
  readonly headingLevel: number;

  constructor(options: MarkdownChunkerOptions = {}) {
    ({ chunkSize: this.chunkSize, overlap: this.overlap } = sizeOptions(this.type, options));
    const s = options.splitOnHeadings ?? false;
    this.headingLevel = s === true ? 6 : s === false ? 0 : Math.max(1, Math.min(6, Math.floor(s)));
  }

  chunk(doc: Document): Chunk[] {
    const text = doc.content.trim();
    if (!text) return [];
    if (this.headingLevel === 0) {
      if (text.length <= this.chunkSize) return toChunks(doc, [text]);
      const sections = splitSections(text, 6).map((s) => s.text);
      const pieces = pack(sections, this.chunkSize, '\n\n', (section) => this.splitLarge(section, undefined));
      return toChunks(doc, withOverlap(pieces, this.overlap));
    }
    const pieces = splitSections(text, this.headingLevel).flatMap((section): HeadedPiece[] =>
      section.text.length <= this.chunkSize ? [{ heading: undefined, body: section.text, first: true }] : this.splitBodies(section.text, section.heading),
    );
    // The overlap is the tail of the previous piece's text, never of a repeated heading, and it
    // goes where that text precedes this piece in the document: before this section's heading
    // on its first piece, after the repeated heading on the others.
    return toChunks(
      doc,
      pieces.map(({ heading, body, first }, i) => {
        const tail = i > 0 && this.overlap > 0 ? pieces[i - 1]!.body.slice(-this.overlap) : '';
        if (!heading) return `${tail}${body}`;
        return first ? `${tail}${heading}\n\n${body}` : `${heading}\n\n${tail}${body}`;
      }),
    );
  }

  /**
   * Packs a section's paragraphs, each piece starting with the section's heading. A heading that
   * leaves no room for text within chunk_size is not repeated (it stays with the first piece).
   */
  private splitLarge(text: string, section: string | undefined): string[] {
    return this.splitBodies(text, section).map(({ heading, body }) => (heading ? `${heading}\n\n${body}` : body));
  }

  private splitBodies(text: string, section: string | undefined): HeadedPiece[] {
    const heading = section && section.length + 2 < this.chunkSize ? section : undefined;
    const body = heading && text.startsWith(heading) ? text.slice(heading.length).trim() : text;
    const room = heading ? this.chunkSize - heading.length - 2 : this.chunkSize;
    const paragraphs = body.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
    return pack(paragraphs, room, '\n\n', (p) => splitWords(p, room)).map((piece, i) => ({ heading, body: piece, first: i === 0 }));
  }
}

export const MARKDOWN_CHUNKER = defineChunker({
  key: 'MarkdownChunker',
  description: 'Splits markdown by headers, sections and paragraphs',
  metadata: SIZED_DEFAULTS,
  create: (options) => new MarkdownChunker(options),
  offload: {
    class: MarkdownChunker,
    settings: (c) => ({ chunkSize: c.chunkSize, overlap: c.overlap, headingLevel: c.headingLevel }),
    rebuild: (s) => new MarkdownChunker({ chunkSize: s.chunkSize, overlap: s.overlap, splitOnHeadings: s.headingLevel === 0 ? false : s.headingLevel }),
  },
});

/** A piece of a section: its text, and the heading it is shown under (repeated on each piece). */
interface HeadedPiece {
  heading: string | undefined;
  body: string;
  first: boolean;
}

const HEADING = /^(#{1,6})\s+\S/;
const FENCE = /^\s*(```|~~~)/;

/** Sections start at ATX headings of level <= maxLevel; text before the first is its own section. */
export function splitSections(text: string, maxLevel: number): Section[] {
  const sections: Section[] = [];
  let heading: string | undefined;
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) sections.push({ heading, text: body });
    lines = [];
  };
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const match = inFence ? null : HEADING.exec(line);
    if (match && match[1]!.length <= maxLevel) {
      flush();
      heading = line.trim();
    }
    lines.push(line);
  }
  flush();
  return sections;
}
