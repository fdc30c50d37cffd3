/**
 * @module knowledge/readers/bytes/converter/convert
 * The converter's work on one file, run in a conversion worker (the `convert` task): find the
 * real format from the bytes (sniff.ts), convert it to markdown documents with the module for
 * its family, and stamp each document with `format` (and `member` inside an archive). Audio and
 * video are not converted here: they are handed back for the main thread to send to the
 * transcription service (network waiting does not belong in a CPU pool).
 *
 * Every failure is a RuntimeError naming the file; an unexpected library error is wrapped as a
 * 422 saying which format could not be converted.
 */
import { RuntimeError, unprocessable } from '../../../../errors.js';
import type { ConvertLimits } from '../../../../settings/converter.js';
import type { Document } from '../../../types.js';
import { HtmlReader } from '../html.js';
import { stem } from '../../reader.js';
import { asciidocToMarkdown } from './asciidoc.js';
import { epubToMarkdown } from './epub.js';
import { latexToMarkdown } from './latex.js';
import { tidy } from './markdown.js';
import { checkImageSize, recognise } from './ocr.js';
import { pdfDocuments } from './pdf-pages.js';
import { asConverter, csvDocument, sheetDocuments, slideDocuments, wordDocument } from './office.js';
import { detectFormat, type Family } from './sniff.js';
import { listTar } from './tar.js';
import { vttToText } from './vtt.js';
import { xmlToMarkdown } from './xml.js';

export interface ConvertPayload {
  name: string;
  data: Uint8Array;
  limits: ConvertLimits;
}

/** Audio or video found in an archive, for the main thread to transcribe. */
export interface MediaItem {
  path: string;
  format: string;
  data: Uint8Array;
}

export interface ConvertResult {
  documents: Document[];
  notes: string[];
  media: MediaItem[];
  format: string;
}

export function convertTask(payload: ConvertPayload): Promise<ConvertResult> {
  return convertFile(payload.data, payload.name, payload.limits, undefined);
}

/** Converts one file; `archive` is the archive's name when the file is one of its members. */
export async function convertFile(data: Uint8Array, name: string, limits: ConvertLimits, archive: string | undefined): Promise<ConvertResult> {
  if (data.length === 0) throw unprocessable(`converter reader: "${name}" is empty (0 bytes)`);
  const detected = await detectFormat(data, name, limits);
  const base = stem(name);
  const notes: string[] = [];
  const media: MediaItem[] = [];
  let documents: Document[];
  try {
    switch (detected.family) {
      case 'media':
        return { documents: [], notes, media: [{ path: name, format: detected.format, data: data.slice() }], format: detected.format };
      case 'tar': {
        if (archive !== undefined) throw unprocessable(`converter reader: "${name}" is an archive inside the archive "${archive}"; nested archives are not unpacked`);
        documents = await convertArchive(data, name, limits, notes, media);
        break;
      }
      case 'epub': {
        const book = await epubToMarkdown(detected.zip!, name, base);
        notes.push(...book.notes);
        documents = book.documents.map((d) => ({ ...d, meta_data: { ...d.meta_data, ...(book.title ? { title: book.title } : {}) } }));
        break;
      }
      case 'pdf':
        documents = await pdfDocuments(data, name, base, limits, notes);
        break;
      case 'image': {
        checkImageSize(data, detected.format, name, limits.ocrMaxPixels);
        const { text, confidence } = await recognise(data, name);
        if (!text) throw unprocessable(`converter reader: "${name}" is an image in which OCR recognised no text`);
        documents = [{ content: text, name: base, id: base, meta_data: { ocr: true, ocr_confidence: confidence } }];
        break;
      }
      default:
        documents = await convertText(detected.family, detected.text ?? '', data, name, base, limits);
    }
  } catch (error) {
    throw asTyped(error, name, detected.format);
  }
  const stamped = documents.map((doc) => ({
    ...doc,
    meta_data: { format: detected.format, ...doc.meta_data, ...(archive !== undefined ? { member: name } : {}) },
  }));
  return { documents: stamped, notes, media, format: detected.format };
}

/** Office formats and the text formats. */
async function convertText(family: Family, text: string, data: Uint8Array, name: string, base: string, limits: ConvertLimits): Promise<Document[]> {
  switch (family) {
    case 'word':
      return wordDocument(data, name, limits);
    case 'slides':
      return slideDocuments(data, name, limits);
    case 'sheet':
      return sheetDocuments(data, name, base, limits);
    case 'csv':
      return csvDocument(text, name, base);
    case 'html':
      return asConverter('html', () => new HtmlReader().read({ data: text, name }));
    case 'xml': {
      const result = await xmlToMarkdown(text, name);
      if (!result.content) throw unprocessable(`converter reader: "${name}" has no text (an XML document without content)`);
      return [{ content: result.content, name: base, id: base, meta_data: { xml_dialect: result.dialect, ...(result.title ? { title: result.title } : {}) } }];
    }
    case 'asciidoc': {
      const result = await asciidocToMarkdown(text, name);
      return [{ content: result.content, name: base, id: base, meta_data: result.title ? { title: result.title } : {} }];
    }
    case 'latex': {
      const result = latexToMarkdown(text, name);
      return [{ content: result.content, name: base, id: base, meta_data: result.title ? { title: result.title } : {} }];
    }
    case 'vtt': {
      const result = vttToText(text, name);
      return [{ content: result.content, name: base, id: base, meta_data: { cues: result.cues, duration_seconds: result.duration } }];
    }
    default: {
      const content = tidy(text);
      if (!content) throw unprocessable(`converter reader: "${name}" is empty (only whitespace)`);
      return [{ content, name: base, id: base, meta_data: {} }];
    }
  }
}

async function convertArchive(data: Uint8Array, name: string, limits: ConvertLimits, notes: string[], media: MediaItem[]): Promise<Document[]> {
  const listing = await listTar(data, name, { maxBytes: limits.archiveMaxBytes, maxMembers: limits.archiveMaxMembers });
  notes.push(...listing.notes);
  const documents: Document[] = [];
  for (const member of listing.members) {
    if (member.data.length === 0) {
      notes.push(`${member.path}: empty`);
      continue;
    }
    try {
      const result = await convertFile(member.data, member.path, limits, name);
      notes.push(...result.notes.map((n) => `${member.path}: ${n}`));
      media.push(...result.media);
      const memberBase = member.path.replace(/\.[^./]+$/, '');
      documents.push(...result.documents.map((doc, i) => ({ ...doc, name: stem(name), id: result.documents.length === 1 ? memberBase : `${memberBase}_${i + 1}` })));
    } catch (error) {
      notes.push(`${member.path}: ${RuntimeError.isInstance(error) ? error.message.replace(/^converter reader: /, '') : 'could not be converted'}`);
    }
  }
  if (documents.length === 0 && media.length === 0) {
    const why = notes.length > 0 ? `: ${notes.slice(0, 5).join('; ')}${notes.length > 5 ? '; …' : ''}` : '';
    throw unprocessable(`converter reader: "${name}" has no member the converter could read${why}`);
  }
  return documents;
}

/** Library errors (a parser's TypeError, a stack overflow on absurd nesting) as a 422 that names the file. */
function asTyped(error: unknown, name: string, format: string): unknown {
  if (RuntimeError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return unprocessable(`converter reader: "${name}" could not be converted as ${format.toUpperCase()} (${reason})`, error);
}
