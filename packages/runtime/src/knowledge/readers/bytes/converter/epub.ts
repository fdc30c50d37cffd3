/**
 * @module knowledge/readers/bytes/converter/epub
 * EPUB books as markdown, one document per chapter in reading order: the container
 * (`META-INF/container.xml`) names the package document (OPF), whose spine lists the chapters
 * by manifest id; each (X)HTML chapter is parsed with linkedom and written as markdown with the
 * docx reader's turndown rules (headings, lists, tables, no images). The book's title comes from
 * the OPF's `dc:title`.
 *
 * Bounds: the zip's declared and actual inflated sizes (office-zip: every part read within the
 * content limits, chapters and the package document as XML parts parsed whole), at most
 * `MAX_CHAPTERS` chapters, and each chapter read once: a spine that lists a chapter again (a
 * small book listing one large chapter thousands of times expands like a huge one) has the
 * repeats skipped with a note. Chapter paths are resolved inside the archive; a spine entry
 * pointing elsewhere or missing is skipped with a note.
 */
import { unprocessable } from '../../../../errors.js';
import type { Document } from '../../../types.js';
import { markdownWriter } from '../docx.js';
import { readPart, resolvePart, type ZipArchive } from '../office-zip.js';
import { attribute, child, descendants, elements, localName, parseXml, type XmlElement } from '../ooxml.js';
import { compactLists, tidy } from './markdown.js';
import { stripDoctype } from './xml.js';

const MAX_CHAPTERS = 2000;
const CHAPTER_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml']);

async function xml(zip: ZipArchive, path: string, fileName: string): Promise<XmlElement | undefined> {
  const text = await readPart(zip, path, { data: '', name: fileName }, 'converter', 'xml');
  if (text === undefined) return undefined;
  try {
    return await parseXml(stripDoctype(text));
  } catch (cause) {
    throw unprocessable(`converter reader: "${fileName}" has an unreadable ${path} (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
}

function textOf(node: XmlElement | undefined): string {
  return node ? node.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('').trim() : '';
}

export interface EpubResult {
  documents: Document[];
  title?: string;
  notes: string[];
}

export async function epubToMarkdown(zip: ZipArchive, fileName: string, base: string): Promise<EpubResult> {
  const container = await xml(zip, 'META-INF/container.xml', fileName);
  const rootfile = container ? descendants(container, 'rootfile')[0] : undefined;
  const opfPath = rootfile ? attribute(rootfile, 'full-path') : undefined;
  if (!opfPath) throw unprocessable(`converter reader: "${fileName}" is not a valid EPUB (META-INF/container.xml names no package document)`);
  const opf = await xml(zip, opfPath, fileName);
  if (!opf || localName(opf.name) !== 'package') throw unprocessable(`converter reader: "${fileName}" is not a valid EPUB (its package document ${opfPath} is missing)`);
  const folder = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/') + 1) : '';
  const metadata = child(opf, 'metadata');
  const title = metadata ? textOf(elements(metadata).find((e) => localName(e.name) === 'title')) || undefined : undefined;
  const manifest = new Map<string, { href: string; type: string }>();
  for (const item of descendants(opf, 'item')) {
    const id = attribute(item, 'id');
    const href = attribute(item, 'href');
    if (id && href) manifest.set(id, { href, type: attribute(item, 'media-type') ?? '' });
  }
  const spine = child(opf, 'spine');
  const refs = spine ? elements(spine, 'itemref') : [];
  if (refs.length === 0) throw unprocessable(`converter reader: "${fileName}" is not a valid EPUB (its spine lists no chapters)`);
  const notes: string[] = [];
  if (refs.length > MAX_CHAPTERS) notes.push(`the book has ${refs.length} chapters; only the first ${MAX_CHAPTERS} were read`);
  const [{ parseHTML }, turndown] = await Promise.all([import('linkedom'), markdownWriter()]);
  const documents: Document[] = [];
  /** Chapter path -> times the spine lists it. */
  const listed = new Map<string, number>();
  let number = 0;
  for (const ref of refs.slice(0, MAX_CHAPTERS)) {
    const item = manifest.get(attribute(ref, 'idref') ?? '');
    if (!item || !CHAPTER_TYPES.has(item.type)) continue;
    let href: string;
    try {
      href = decodeURIComponent(item.href.split('#')[0]!);
    } catch {
      href = item.href;
    }
    const path = resolvePart(folder, href);
    if (href.includes('://') || !zip.has(path)) {
      notes.push(`chapter ${item.href}: not in the book`);
      continue;
    }
    const times = (listed.get(path) ?? 0) + 1;
    listed.set(path, times);
    if (times > 1) continue;
    const html = await readPart(zip, path, { data: '', name: fileName }, 'converter', 'xml');
    const { document } = parseHTML(stripDoctype(html ?? '').replace(/^<\?xml[^>]*\?>/, ''));
    for (const node of document.querySelectorAll('script, style, img, svg, nav')) node.remove();
    const bodyHtml = document.body?.innerHTML ?? document.documentElement?.innerHTML ?? '';
    const content = compactLists(tidy(turndown.turndown(bodyHtml)));
    number++;
    if (!content) continue;
    const heading = document.querySelector('h1, h2, h3')?.textContent?.trim() || document.querySelector('title')?.textContent?.trim();
    documents.push({ content, name: base, id: `${base}_chapter_${number}`, meta_data: { chapter: number, ...(heading ? { chapter_title: heading } : {}) } });
  }
  for (const [path, times] of listed) if (times > 1) notes.push(`chapter ${path} is listed ${times} times in the spine; it was read once`);
  if (documents.length === 0) throw unprocessable(`converter reader: "${fileName}" has no chapter with text`);
  return { documents, notes, ...(title ? { title } : {}) };
}
