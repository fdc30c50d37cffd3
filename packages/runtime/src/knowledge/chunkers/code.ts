/**
 * @module knowledge/chunkers/code
 * Source code split along its syntax tree (tree-sitter), so a chunk holds whole definitions.
 *
 * The top-level nodes of the file are the units. A unit larger than chunk_size is replaced by
 * its children (a class by its header and its methods, a function by its signature and its
 * statements), recursively; a single token larger than chunk_size (a huge string literal) is the
 * only thing cut as text. Adjacent units are then packed greedily up to chunk_size characters.
 * Cuts fall on node starts, moved back to the start of the line when only indentation precedes
 * the node, so a method keeps its indentation and comments between definitions go with what
 * they follow. Chunks are contiguous slices of the file without their leading blank lines and
 * trailing whitespace: joined in order they give back the file, whitespace at the cuts aside.
 *
 * Each chunk carries `language`, `start_line` and `end_line` (1-based, inclusive). Files in a
 * language without a grammar, files over `maxParseChars`, and files the parser gives up on are
 * split as text instead (at blank lines, line breaks, then spaces), with the same metadata.
 *
 * `splitCode` is a pure function of the text and plain options that returns offsets, so it can
 * move to a worker thread unchanged; parsing is synchronous and costs about 0.3 s per MB of
 * Python on the reference machine (see docs/ARCHITECTURE.md).
 */
import type { Node } from 'web-tree-sitter';
import type { Chunk, Document } from '../types.js';
import { defineChunker, sizeOptions, toChunks, type ChunkContext, type ChunkerOf, type Piece } from './chunker.js';
import { detectLanguage, loadGrammar, treeSitter, type CodeLanguage } from './code-languages.js';
import { splitSpan, type Span } from './spans.js';

export const DEFAULT_CODE_CHUNK_SIZE = 2048;
/** Above this many characters a file is split as text: a parse blocks the event loop (~0.3 s/MB). */
export const DEFAULT_MAX_PARSE_CHARS = 2_000_000;

export interface CodeChunkerOptions {
  /** Maximum characters per chunk; default 2048. */
  chunkSize?: number;
  /** The language, overriding detection from the file name (`python`, `ts`, `go`...). */
  language?: string;
  /** Larger files are split as text rather than parsed; default 2,000,000 characters. */
  maxParseChars?: number;
}

export interface CodePiece extends Span {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

export interface CodeSplit {
  /** `syntax` when the syntax tree placed the cuts, `text` for the fallback, `whole` when it all fits in one. */
  splitter: 'syntax' | 'text' | 'whole';
  pieces: CodePiece[];
}

export class CodeChunker implements ChunkerOf<'CodeChunker'> {
  readonly type = 'CodeChunker' as const;
  readonly chunkSize: number;
  readonly language: string | undefined;
  readonly maxParseChars: number;

  constructor(options: CodeChunkerOptions = {}) {
    // No overlap: code chunks end at definitions, as in agno (a given overlap is dropped).
    ({ chunkSize: this.chunkSize } = sizeOptions(this.type, { chunkSize: options.chunkSize ?? DEFAULT_CODE_CHUNK_SIZE }));
    this.language = options.language;
    this.maxParseChars = options.maxParseChars ?? DEFAULT_MAX_PARSE_CHARS;
  }

  async chunk(doc: Document, context: ChunkContext = {}): Promise<Chunk[]> {
    const { language, grammar } = detectLanguage(doc, this.language, context.sourceName);
    const { pieces } = await splitCode(doc.content, { grammar, chunkSize: this.chunkSize, maxParseChars: this.maxParseChars });
    return toChunks(
      doc,
      pieces.map((p): Piece => ({ content: doc.content.slice(p.start, p.end), meta_data: { language, start_line: p.startLine, end_line: p.endLine } })),
    );
  }
}

/** As in agno, chunk_size applies and a given chunk_overlap is dropped. */
export const CODE_CHUNKER = defineChunker({
  key: 'CodeChunker',
  description: 'Splits source code at definitions along its syntax tree (tree-sitter)',
  metadata: { chunk_size: DEFAULT_CODE_CHUNK_SIZE },
  create: ({ chunkSize }) => new CodeChunker(chunkSize !== undefined ? { chunkSize } : {}),
  offload: {
    class: CodeChunker,
    settings: (c) => ({ chunkSize: c.chunkSize, language: c.language, maxParseChars: c.maxParseChars }),
    rebuild: (s) => new CodeChunker({ chunkSize: s.chunkSize, maxParseChars: s.maxParseChars, ...(s.language !== undefined ? { language: s.language } : {}) }),
  },
});

/**
 * Splits source text into pieces of at most `chunkSize` characters along its syntax tree, or as
 * text when there is no grammar, the text is larger than `maxParseChars`, or parsing fails.
 */
export async function splitCode(text: string, options: { grammar: CodeLanguage | undefined; chunkSize: number; maxParseChars?: number }): Promise<CodeSplit> {
  const { grammar, chunkSize } = options;
  const layout = new Layout(text);
  const whole = [{ start: 0, end: text.length }];
  // A file that fits in one chunk needs no parse.
  if (layout.length(0, text.length) <= chunkSize) return { splitter: 'whole', pieces: layout.pieces(whole, chunkSize) };
  if (grammar !== undefined && text.length <= (options.maxParseChars ?? DEFAULT_MAX_PARSE_CHARS)) {
    const cuts = await syntaxCuts(text, grammar, chunkSize, layout);
    if (cuts) return { splitter: 'syntax', pieces: layout.pieces(packCuts(cuts, chunkSize, layout), chunkSize) };
  }
  return { splitter: 'text', pieces: layout.pieces(whole, chunkSize) };
}

/** Unit boundaries from the syntax tree; undefined if the grammar cannot be loaded or parsing fails. */
async function syntaxCuts(text: string, grammar: CodeLanguage, size: number, layout: Layout): Promise<Cuts | undefined> {
  let language;
  try {
    language = await loadGrammar(grammar);
  } catch {
    return undefined;
  }
  const { Parser } = await treeSitter();
  const parser = new Parser();
  try {
    parser.setLanguage(language);
    const tree = parser.parse(text);
    if (!tree) return undefined;
    try {
      return collectCuts(tree.rootNode, text, size, layout);
    } finally {
      tree.delete();
    }
  } finally {
    parser.delete();
  }
}

/** Unit boundaries, ascending from 0 to text.length, and those a chunk should not end at. */
interface Cuts {
  at: number[];
  /** Cuts inside a split node's header (its first line, up to its first child on a later line). */
  glued: Set<number>;
}

interface Frame {
  node: Node;
  next: number;
  /** Where the node's header starts: its children there are measured together with it. */
  anchor: number;
  /** The line the node starts on; its children on that line belong to its header. */
  line: number;
  /** True until the first child on a later line has been seen. */
  inHeader: boolean;
  /** The previous child documents or annotates what follows (a comment, an attribute). */
  leading: boolean;
  /** Where the current run of such children started. */
  leadStart: number;
}

/** Nodes that belong with the node after them: comments, Rust attributes, decorators. */
const LEADING = /comment|^attribute_item$|^decorator$/;

/**
 * Walks the tree depth-first (with an explicit stack: expression chains can nest deeper than the
 * call stack), adding a cut at each child's start and descending only into children too large
 * for one chunk. A childless node that is still too large is cut as text.
 *
 * A node that is descended into keeps its header (`class Warehouse:`, `function f() {`) with
 * what follows it: the cuts in the header are marked glued, so packing does not end a chunk
 * there, and a header's first body part is measured together with the header when deciding
 * whether it must be split further. Comments and attributes are glued to the node after them
 * the same way.
 */
function collectCuts(root: Node, text: string, size: number, layout: Layout): Cuts {
  const at = [0];
  const glued = new Set<number>();
  const stack: Frame[] = [{ node: root, next: 0, anchor: 0, line: 0, inHeader: false, leading: false, leadStart: 0 }];
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.next >= frame.node.childCount) {
      stack.pop();
      continue;
    }
    const child = frame.node.child(frame.next++);
    if (!child) continue;
    const last = at.at(-1)!;
    const start = lineStartIfIndented(text, child.startIndex, last);
    if (start > last) at.push(start);
    const from = at.at(-1)!;
    const line = layout.line(Math.min(child.startIndex, text.length - 1));
    const inHeader = frame.inHeader;
    if (inHeader && line > frame.line) frame.inHeader = false;
    if ((inHeader && from > frame.anchor) || frame.leading) glued.add(from);
    const anchor = inHeader ? frame.anchor : frame.leading ? frame.leadStart : from;
    if (!frame.leading) frame.leadStart = from;
    frame.leading = LEADING.test(child.type);
    if (layout.length(anchor, child.endIndex) <= size) continue;
    if (child.childCount > 0) stack.push({ node: child, next: 0, anchor, line, inHeader: true, leading: false, leadStart: from });
    else for (const span of splitSpan(text, from, child.endIndex, size).slice(1)) at.push(span.start);
  }
  if (text.length > at.at(-1)!) at.push(text.length);
  return { at, glued };
}

/** The start of `at`'s line when only spaces or tabs precede it there, else `at` itself. */
function lineStartIfIndented(text: string, at: number, floor: number): number {
  let i = at;
  while (i > floor && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  return i === 0 || text[i - 1] === '\n' ? i : at;
}

/**
 * Greedily joins consecutive units while the joined text stays within `size`; a chunk that
 * would end at a glued cut ends at the last cut before it that is not glued, when there is one.
 */
function packCuts({ at: cuts, glued }: Cuts, size: number, layout: Layout): Span[] {
  const spans: Span[] = [];
  let a = 0;
  while (a < cuts.length - 1) {
    let b = a + 1;
    while (b + 1 < cuts.length && layout.length(cuts[a]!, cuts[b + 1]!) <= size) b++;
    if (b < cuts.length - 1 && glued.has(cuts[b]!)) {
      let back = b - 1;
      while (back > a && glued.has(cuts[back]!)) back--;
      if (back > a) b = back;
    }
    spans.push({ start: cuts[a]!, end: cuts[b]! });
    a = b;
  }
  return spans;
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(String.fromCharCode(code)));
}

/**
 * What a span of source becomes as a chunk: leading blank lines and trailing whitespace dropped,
 * the first line's indentation kept. Sizes are measured on that.
 */
class Layout {
  private readonly lineBreaks: number[] = [];

  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lineBreaks.push(i);
  }

  start(a: number, b: number): number {
    let p = a;
    while (p < b && isSpace(this.text.charCodeAt(p))) p++;
    if (p === b) return b;
    let line = p;
    while (line > a && this.text[line - 1] !== '\n') line--;
    return line;
  }

  end(a: number, b: number): number {
    let q = b;
    while (q > a && isSpace(this.text.charCodeAt(q - 1))) q--;
    return q;
  }

  length(a: number, b: number): number {
    return Math.max(0, this.end(a, b) - this.start(a, b));
  }

  /** 1-based line number of offset `at`. */
  line(at: number): number {
    let lo = 0;
    let hi = this.lineBreaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lineBreaks[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }

  /** Trimmed pieces with line ranges; a span still over `size` is cut as text first. */
  pieces(spans: readonly Span[], size: number): CodePiece[] {
    const out: CodePiece[] = [];
    for (const span of spans) {
      const parts = this.length(span.start, span.end) > size ? splitSpan(this.text, span.start, span.end, size) : [span];
      for (const part of parts) {
        const start = this.start(part.start, part.end);
        const end = this.end(part.start, part.end);
        if (end <= start) continue;
        out.push({ start, end, startLine: this.line(start), endLine: this.line(end - 1) });
      }
    }
    return out;
  }
}
