/**
 * @module knowledge/readers/bytes/pptx
 * PowerPoint .pptx: one Document per slide, in presentation order (the slide list of
 * ppt/presentation.xml through its relationships, not the part names, which a reordered deck
 * no longer follows). `meta_data.slide` is the 1-based number PowerPoint shows.
 *
 * A slide's text is written as:
 *
 * ```
 * Slide 2: <title>
 *
 * <each other text shape, its paragraphs one per line; groups are walked>
 *
 * <each table, one row per line, cells joined by " | ">
 *
 * Speaker notes:
 * <the notes page's body text>
 * ```
 *
 * Slide number, date and footer placeholders are left out (they repeat on every slide). A slide
 * with neither text nor notes is skipped rather than written as "(No text content)" as agno
 * does: that text would only match searches for it. Its number is still counted, so later slides
 * keep their real numbers. The reader is paged by `slide`: the Knowledge chunks the deck as one
 * text and gives each chunk the slides it covers.
 *
 * Parts are read within the content limits (office-zip), each read counted: a deck listing one
 * slide a thousand times uses the file's budget up as a thousand slides would.
 */
import { unprocessable } from '../../../errors.js';
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '../../../settings/content-limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { encryptedRefusal, isEncryptedOoxml, isOle, isZip, openZip, readPart, requireBytes, resolvePart, type ZipArchive } from './office-zip.js';
import { attribute, child, descendants, elements, localName, parseXml, path, relationships, type XmlElement } from './ooxml.js';
import { sharedOffload, type Offload } from '../../../workers/offload.js';
import { readInWorker, type ReadPayload } from './offloaded.js';
import { TEXT_CHUNKERS, stem, type ReadOptions, type Reader } from '../reader.js';

export interface PptxReaderOptions {
  /** Where parsing runs; default the process's worker pool (see workers/offload). */
  offload?: Offload;
  /** Inflation budgets; default the built-in ones (the registry passes the environment's). */
  limits?: ContentLimits;
}

const PPTX_MIME = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
/** Placeholders whose text is chrome, not content. */
const CHROME_PLACEHOLDERS = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg']);
const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);

export class PptxReader implements Reader {
  readonly id = 'pptx';
  readonly name = 'PptxReader';
  readonly description = 'Reads PowerPoint .pptx files, one document per slide with its tables and speaker notes';
  readonly chunkers = ['DocumentChunker', ...TEXT_CHUNKERS.filter((c) => c !== 'DocumentChunker')] as const;
  readonly contentTypes = ['.pptx', PPTX_MIME] as const;
  readonly pagedBy = 'slide';
  private readonly offload: Offload | undefined;
  private readonly limits: ContentLimits;

  constructor(options: PptxReaderOptions = {}) {
    this.offload = options.offload;
    this.limits = options.limits ?? DEFAULT_CONTENT_LIMITS;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = this.offload ?? sharedOffload();
    if (where !== 'inline') return readInWorker(where, 'pptx', input, options, { limits: this.limits });
    const data = requireBytes(input, this.id);
    if (isEncryptedOoxml(data)) throw encryptedRefusal(input, this.id);
    if (isOle(data)) {
      throw unprocessable(`pptx reader: "${input.name}" is a PowerPoint 97-2003 (.ppt) file, which cannot be read; save it as .pptx and upload that`);
    }
    if (!isZip(data)) throw unprocessable(`pptx reader: "${input.name}" is not a PowerPoint .pptx file (it is not a zip archive)`);
    const zip = openZip(data, input, this.id, 'PPTX', this.limits);
    const slides = await slideParts(zip, input);
    const name = stem(input.name);
    const docs: Document[] = [];
    // A slide listed again is parsed once; its bytes are counted again each time (recount), so a
    // deck listing one slide thousands of times still uses the budget up as that many slides
    // would, without thousands of parses of it.
    const readings = new Map<string, { text: ShapeText; bytes: number }>();
    for (const [i, part] of slides.entries()) {
      const number = i + 1;
      let reading = readings.get(part);
      if (reading) zip.recount(reading.bytes);
      else {
        const before = zip.inflatedBytes;
        const text = await slideText(zip, part, input);
        reading = { text, bytes: zip.inflatedBytes - before };
        readings.set(part, reading);
      }
      const content = slideContent(reading.text, number);
      if (content) docs.push({ content, name, id: `${name}_${number}`, meta_data: { slide: number } });
    }
    if (docs.length === 0) {
      throw unprocessable(`pptx reader: "${input.name}" has ${slides.length} slide(s) but no text on any of them (pictures are not read)`);
    }
    return docs;
  }
}

async function xmlPart(zip: ZipArchive, partPath: string, input: ReaderInput): Promise<XmlElement | undefined> {
  const xml = await readPart(zip, partPath, input, 'pptx', 'xml');
  if (xml === undefined) return undefined;
  try {
    return await parseXml(xml);
  } catch (cause) {
    throw unprocessable(`pptx reader: "${input.name}" has an unreadable part ${partPath} (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
}

function relsPathOf(partPath: string): string {
  const slash = partPath.lastIndexOf('/');
  return `${partPath.slice(0, slash + 1)}_rels/${partPath.slice(slash + 1)}.rels`;
}

function folderOf(partPath: string): string {
  return partPath.slice(0, partPath.lastIndexOf('/') + 1);
}

/** The slide part paths in presentation order. */
async function slideParts(zip: ZipArchive, input: ReaderInput): Promise<string[]> {
  const presentationPath = 'ppt/presentation.xml';
  const presentation = await xmlPart(zip, presentationPath, input);
  if (!presentation || localName(presentation.name) !== 'presentation') {
    throw unprocessable(`pptx reader: "${input.name}" is not a PowerPoint presentation (it has no ppt/presentation.xml)`);
  }
  const rels = relationships(await xmlPart(zip, relsPathOf(presentationPath), input));
  const list = child(presentation, 'sldIdLst');
  const parts: string[] = [];
  for (const entry of list ? elements(list, 'sldId') : []) {
    const rel = rels.get(attribute(entry, 'id', true) ?? '');
    if (!rel) throw unprocessable(`pptx reader: "${input.name}" lists a slide whose relationship is missing from ppt/_rels/presentation.xml.rels`);
    const part = resolvePart(folderOf(presentationPath), rel.target);
    if (!zip.has(part)) throw unprocessable(`pptx reader: "${input.name}" lists slide ${parts.length + 1} at ${part}, which is missing`);
    parts.push(part);
  }
  if (parts.length === 0) throw unprocessable(`pptx reader: "${input.name}" has no slides`);
  return parts;
}

/** A slide's title and blocks (its shapes' text, then its speaker notes). */
async function slideText(zip: ZipArchive, part: string, input: ReaderInput): Promise<ShapeText> {
  const slide = await xmlPart(zip, part, input);
  const tree = slide && path(slide, ['cSld', 'spTree']);
  if (!tree) throw unprocessable(`pptx reader: "${input.name}" has a slide part ${part} without a shape tree`);
  const content = shapeTree(tree);

  const notesRel = [...relationships(await xmlPart(zip, relsPathOf(part), input)).values()].find((r) => r.type.endsWith('/notesSlide'));
  let notes = '';
  if (notesRel) {
    const notesSlide = await xmlPart(zip, resolvePart(folderOf(part), notesRel.target), input);
    const notesTree = notesSlide && path(notesSlide, ['cSld', 'spTree']);
    // The notes page also holds the slide image and a slide number; only its body is the notes.
    if (notesTree) notes = shapeTree(notesTree, (type) => type === 'body').blocks.join('\n\n');
  }

  const blocks = [...content.blocks];
  if (notes) blocks.push(`Speaker notes:\n${notes}`);
  return { title: content.title, blocks };
}

/** Slide `number`'s text as written (see the module's comment); empty for a slide without text. */
function slideContent({ title, blocks }: ShapeText, number: number): string {
  if (!title && blocks.length === 0) return '';
  return [title ? `Slide ${number}: ${title}` : `Slide ${number}`, ...blocks].join('\n\n');
}

interface ShapeText {
  title: string;
  blocks: string[];
}

/**
 * The text of a shape tree in document order. `keep` decides by placeholder type (undefined for
 * a shape that is not a placeholder) which text shapes count.
 */
function shapeTree(tree: XmlElement, keep: (placeholder: string | undefined) => boolean = (type) => type === undefined || !CHROME_PLACEHOLDERS.has(type)): ShapeText {
  const out: ShapeText = { title: '', blocks: [] };
  const visit = (node: XmlElement) => {
    for (const shape of elements(node)) {
      switch (localName(shape.name)) {
        case 'sp': {
          const ph = path(shape, ['nvSpPr', 'nvPr', 'ph']);
          // A placeholder without a type is a body placeholder.
          const type = ph ? (attribute(ph, 'type') ?? 'body') : undefined;
          if (!keep(type)) break;
          const body = child(shape, 'txBody');
          const text = body ? paragraphs(body) : '';
          if (!text) break;
          if (type !== undefined && TITLE_PLACEHOLDERS.has(type) && !out.title) out.title = text.replace(/\s*\n\s*/g, ' ');
          else out.blocks.push(text);
          break;
        }
        case 'graphicFrame': {
          for (const table of descendants(shape, 'tbl')) {
            const rows = elements(table, 'tr')
              .map((tr) => elements(tr, 'tc').map((tc) => (child(tc, 'txBody') ? paragraphs(child(tc, 'txBody')!).replace(/\s*\n\s*/g, ' ') : '')))
              .filter((cells) => cells.some(Boolean))
              .map((cells) => cells.join(' | '));
            if (rows.length > 0) out.blocks.push(rows.join('\n'));
          }
          break;
        }
        case 'grpSp':
          visit(shape);
          break;
        case 'AlternateContent': {
          // Newer shapes come with a fallback; read the first branch only, not both.
          const branch = elements(shape).find((e) => ['Choice', 'Fallback'].includes(localName(e.name)));
          if (branch) visit(branch);
          break;
        }
      }
    }
  };
  visit(tree);
  return out;
}

/** A text body's paragraphs, one per line; runs, fields and line breaks in order. */
function paragraphs(body: XmlElement): string {
  return elements(body, 'p')
    .map((p) => {
      let line = '';
      for (const piece of elements(p)) {
        const kind = localName(piece.name);
        if (kind === 'r' || kind === 'fld') line += textOf(child(piece, 't'));
        else if (kind === 'br') line += '\n';
      }
      return line.replace(/[ \t\u00a0]+/g, ' ').trim();
    })
    .filter(Boolean)
    .join('\n');
}

function textOf(node: XmlElement | undefined): string {
  return node ? node.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('') : '';
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker thread. */
export function readInline(payload: ReadPayload): Promise<Document[]> {
  return new PptxReader({ ...payload.options, offload: 'inline' }).read({ data: payload.data, name: payload.name });
}
