/**
 * @module knowledge/readers/bytes/converter/sniff
 * What a file really is, from its bytes: file signatures (magic numbers) for binary formats,
 * the `[Content_Types].xml` part (or EPUB's `mimetype`) for zip containers, and the opening of
 * the text for text formats. The name's extension only breaks ties the bytes cannot (a text
 * file that is AsciiDoc or CSV; an MP4 container holding only audio), and a name that promises a
 * binary format the bytes do not have is refused rather than read as something else.
 *
 * `sniffSignature` looks only at the first bytes and is cheap enough for the main thread (the
 * converter uses it to send audio and video to the transcription service); `detectFormat` may
 * open a zip and runs in a worker.
 */
import type JSZip from 'jszip';
import { unprocessable } from '../../../../errors.js';
import { openZip, readPart } from '../office-zip.js';
import { extension } from '../../reader.js';

export type Family = 'word' | 'slides' | 'sheet' | 'csv' | 'pdf' | 'html' | 'xml' | 'asciidoc' | 'latex' | 'vtt' | 'markdown' | 'text' | 'tar' | 'epub' | 'image' | 'media';

export interface Detected {
  /** The concrete format, e.g. `docm`, `png`, `mp3`; stored as `meta_data.format`. */
  format: string;
  family: Family;
  /** Text formats: the decoded text. */
  text?: string;
}

/** Formats recognised by signature alone. */
export type SignatureFormat = 'pdf' | 'zip' | 'gzip' | 'tar' | 'ole' | 'png' | 'jpeg' | 'tiff' | 'bmp' | 'webp' | 'gif' | 'wav' | 'mp3' | 'aac' | 'ogg' | 'flac' | 'm4a' | 'mp4' | 'mov' | 'avi';

export const IMAGE_FORMATS = new Set(['png', 'jpeg', 'tiff', 'bmp', 'webp']);
export const MEDIA_FORMATS = new Set(['wav', 'mp3', 'aac', 'ogg', 'flac', 'm4a', 'mp4', 'mov', 'avi']);
export const VIDEO_FORMATS = new Set(['mp4', 'mov', 'avi']);

/** The family each extension of the spec's map promises. */
const EXTENSION_FAMILY: Record<string, Family> = {
  '.docx': 'word', '.dotx': 'word', '.docm': 'word', '.dotm': 'word',
  '.pptx': 'slides', '.potx': 'slides', '.ppsx': 'slides', '.pptm': 'slides', '.ppsm': 'slides', '.potm': 'slides',
  '.xlsx': 'sheet', '.xlsm': 'sheet',
  '.csv': 'csv',
  '.pdf': 'pdf',
  '.html': 'html', '.htm': 'html', '.xhtml': 'html',
  '.xml': 'xml', '.nxml': 'xml', '.xbrl': 'xml',
  '.adoc': 'asciidoc', '.asciidoc': 'asciidoc', '.asc': 'asciidoc',
  '.tex': 'latex', '.latex': 'latex',
  '.vtt': 'vtt',
  '.md': 'markdown', '.markdown': 'markdown',
  '.txt': 'text',
  '.gz': 'tar', '.tgz': 'tar', '.tar': 'tar',
  '.epub': 'epub',
  '.png': 'image', '.jpeg': 'image', '.jpg': 'image', '.tiff': 'image', '.tif': 'image', '.bmp': 'image', '.webp': 'image',
  '.wav': 'media', '.mp3': 'media', '.m4a': 'media', '.aac': 'media', '.ogg': 'media', '.flac': 'media', '.mp4': 'media', '.avi': 'media', '.mov': 'media',
};

const FAMILY_NAMES: Record<Family, string> = {
  word: 'a Word document',
  slides: 'a PowerPoint presentation',
  sheet: 'an Excel workbook',
  csv: 'CSV',
  pdf: 'a PDF',
  html: 'HTML',
  xml: 'XML',
  asciidoc: 'AsciiDoc',
  latex: 'LaTeX',
  vtt: 'WebVTT captions',
  markdown: 'markdown',
  text: 'text',
  tar: 'a .tar.gz archive',
  epub: 'an EPUB book',
  image: 'an image',
  media: 'audio or video',
};

export function familyName(family: Family): string {
  return FAMILY_NAMES[family];
}

/** The family a file name promises, if its extension is one the converter knows. */
export function familyOfName(name: string): Family | undefined {
  return EXTENSION_FAMILY[extension(name)];
}

const ascii = (data: Uint8Array, start: number, end: number) => String.fromCharCode(...data.subarray(start, end));
const startsWith = (data: Uint8Array, bytes: readonly number[], at = 0) => data.length >= at + bytes.length && bytes.every((b, i) => data[at + i] === b);

const BMP_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/** The format a file's first bytes announce, if any. */
export function sniffSignature(data: Uint8Array, name = ''): SignatureFormat | undefined {
  const ext = extension(name);
  if (data.length < 4) return undefined;
  if (ascii(data, 0, Math.min(data.length, 1024)).includes('%PDF-')) return 'pdf';
  if (startsWith(data, [0x50, 0x4b, 0x03, 0x04]) || startsWith(data, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (startsWith(data, [0x1f, 0x8b])) return 'gzip';
  if (startsWith(data, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'ole';
  if (data.length >= 262 && ascii(data, 257, 262) === 'ustar') return 'tar';
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(data, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(data, [0x49, 0x49, 0x2a, 0x00]) || startsWith(data, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (ascii(data, 0, 6) === 'GIF87a' || ascii(data, 0, 6) === 'GIF89a') return 'gif';
  if (data.length >= 18 && ascii(data, 0, 2) === 'BM' && BMP_HEADER_SIZES.has(new DataView(data.buffer, data.byteOffset).getUint32(14, true))) return 'bmp';
  if (data.length >= 12 && ascii(data, 0, 4) === 'RIFF') {
    const kind = ascii(data, 8, 12);
    if (kind === 'WEBP') return 'webp';
    if (kind === 'WAVE') return 'wav';
    if (kind === 'AVI ') return 'avi';
  }
  if (ascii(data, 0, 4) === 'OggS') return 'ogg';
  if (ascii(data, 0, 4) === 'fLaC') return 'flac';
  if (data.length >= 12 && ascii(data, 4, 8) === 'ftyp') {
    const brand = ascii(data, 8, 12);
    // HEIF/AVIF images share the box format; they are not media the converter reads.
    if (['heic', 'heix', 'hevc', 'mif1', 'msf1', 'avif', 'avis'].includes(brand)) return undefined;
    if (brand === 'qt  ') return 'mov';
    if (brand.startsWith('M4A') || brand.startsWith('M4B') || brand.startsWith('M4P')) return 'm4a';
    // A generic brand (isom, mp42...) holds audio only as often as video: the name decides.
    return ext === '.m4a' ? 'm4a' : ext === '.mov' ? 'mov' : 'mp4';
  }
  if (data.length >= 8 && ['moov', 'mdat', 'wide', 'pnot', 'skip', 'free'].includes(ascii(data, 4, 8)) && ext === '.mov') return 'mov';
  if (ascii(data, 0, 3) === 'ID3') return ext === '.aac' ? 'aac' : 'mp3';
  if (data[0] === 0xff && (data[1]! & 0xf6) === 0xf0) return 'aac';
  // FF FE is both an MPEG Layer I frame sync and the UTF-16LE byte order mark: text wins.
  if (data[0] === 0xff && (data[1]! & 0xe0) === 0xe0 && ((data[1]! >> 1) & 0x3) !== 0 && !utf16leText(data)) return 'mp3';
  return undefined;
}

/** A UTF-16LE byte order mark followed by text (its first KiB decodes, without NUL). */
function utf16leText(data: Uint8Array): boolean {
  if (!startsWith(data, [0xff, 0xfe])) return false;
  try {
    // `stream`: a character the 1 KiB cut runs through is not an error.
    const text = new TextDecoder('utf-16le', { fatal: true }).decode(data.subarray(2, 1026), { stream: true });
    return text.length > 0 && !text.includes('\u0000');
  } catch {
    return false;
  }
}

const OOXML_MAIN: Record<string, { format: string; family: Family }> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml': { format: 'docx', family: 'word' },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml': { format: 'dotx', family: 'word' },
  'application/vnd.ms-word.document.macroenabled.main+xml': { format: 'docm', family: 'word' },
  'application/vnd.ms-word.template.macroenabledtemplate.main+xml': { format: 'dotm', family: 'word' },
  'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml': { format: 'pptx', family: 'slides' },
  'application/vnd.openxmlformats-officedocument.presentationml.template.main+xml': { format: 'potx', family: 'slides' },
  'application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml': { format: 'ppsx', family: 'slides' },
  'application/vnd.ms-powerpoint.presentation.macroenabled.main+xml': { format: 'pptm', family: 'slides' },
  'application/vnd.ms-powerpoint.slideshow.macroenabled.main+xml': { format: 'ppsm', family: 'slides' },
  'application/vnd.ms-powerpoint.template.macroenabled.main+xml': { format: 'potm', family: 'slides' },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml': { format: 'xlsx', family: 'sheet' },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml': { format: 'xltx', family: 'sheet' },
  'application/vnd.ms-excel.sheet.macroenabled.main+xml': { format: 'xlsm', family: 'sheet' },
  'application/vnd.ms-excel.template.macroenabled.main+xml': { format: 'xltm', family: 'sheet' },
};

/** A zip's kind: an Office Open XML package by its main part's content type, or an EPUB by its `mimetype`. */
export async function zipKind(zip: JSZip, name: string): Promise<{ format: string; family: Family }> {
  const mimetype = await readPart(zip, 'mimetype', { data: '', name }, 'converter', 1024);
  if (mimetype?.trim() === 'application/epub+zip') return { format: 'epub', family: 'epub' };
  const types = await readPart(zip, '[Content_Types].xml', { data: '', name }, 'converter', 4 * 1024 * 1024);
  if (types !== undefined) {
    for (const match of types.matchAll(/ContentType\s*=\s*"([^"]+)"/g)) {
      const kind = OOXML_MAIN[match[1]!.toLowerCase()];
      if (kind) return kind;
    }
    throw unprocessable(`converter reader: "${name}" is an Office Open XML package of a kind the converter does not read (no Word, PowerPoint or Excel main part)`);
  }
  throw unprocessable(`converter reader: "${name}" is a zip archive but neither an Office document nor an EPUB book; only .tar.gz archives are unpacked`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a file, for UTF-8 (with or without a BOM) and UTF-16 with a BOM; undefined for binary data. */
export function decodeTextBytes(data: Uint8Array): string | undefined {
  try {
    if (startsWith(data, [0xff, 0xfe])) return new TextDecoder('utf-16le', { fatal: true }).decode(data.subarray(2));
    if (startsWith(data, [0xfe, 0xff])) return new TextDecoder('utf-16be', { fatal: true }).decode(data.subarray(2));
    const text = utf8.decode(data);
    // NUL bytes do not occur in text; they do in binary data that happens to be valid UTF-8.
    if (text.includes('\u0000')) return undefined;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return undefined;
  }
}

/** What the text's opening says it is, whatever its name. */
function textKind(text: string, name: string, promised: Family | undefined): { format: string; family: Family } | undefined {
  // `\s` takes in byte order marks (U+FEFF) too, wherever they sit among the leading blanks.
  const head = text.slice(0, 4096).replace(/^\s+/, '');
  if (/^WEBVTT(?=[ \t\r\n]|$)/.test(head)) return { format: 'vtt', family: 'vtt' };
  // Markup: skip an XML declaration and comments to find the doctype or root element. HTML's
  // doctype is case-insensitive (`<!doctype html>` is what most pages start with).
  const markup = head.replace(/^(<\?xml[^>]*\?>\s*|<!--[\s\S]*?-->\s*)+/, '');
  const declared = head.startsWith('<?xml');
  if (declared || /^<(!DOCTYPE|[A-Za-z_])/i.test(markup)) {
    if (/^<!DOCTYPE\s+html\b/i.test(markup) || /^<html[\s>]/i.test(markup)) return { format: extension(name) === '.xhtml' || declared ? 'xhtml' : 'html', family: 'html' };
    if (declared || /^<!DOCTYPE\s/i.test(markup)) return { format: 'xml', family: 'xml' };
    // A bare fragment decides only when the name does not: markdown and AsciiDoc may open with HTML.
    if (promised && promised !== 'html' && promised !== 'xml' && promised !== 'text') return undefined;
    if (promised === 'xml') return { format: 'xml', family: 'xml' };
    if (promised === 'html' || /^<(head|body|div|p|h[1-6]|section|article|main|table|ul|ol|span|a)[\s>/]/i.test(markup)) return { format: 'html', family: 'html' };
    return { format: 'xml', family: 'xml' };
  }
  if ((promised === undefined || promised === 'text') && /\\documentclass\b|\\begin\{document\}/.test(text.slice(0, 65_536))) return { format: 'latex', family: 'latex' };
  return undefined;
}

const TEXT_FAMILIES = new Set<Family>(['csv', 'html', 'xml', 'asciidoc', 'latex', 'vtt', 'markdown', 'text']);

/**
 * The format of a file, from its bytes first. Refuses (422) a file whose bytes are no format the
 * converter reads, or that its name says is a binary format it is not.
 */
export async function detectFormat(data: Uint8Array, name: string): Promise<Detected & { zip?: JSZip }> {
  const promised = familyOfName(name);
  const signature = sniffSignature(data, name);
  switch (signature) {
    case 'pdf':
      return { format: 'pdf', family: 'pdf' };
    case 'zip': {
      const zip = await openZip(data, { data, name }, 'converter', 'a zip archive');
      return { ...(await zipKind(zip, name)), zip };
    }
    case 'gzip':
    case 'tar':
      return { format: 'tar', family: 'tar' };
    case 'ole':
      throw unprocessable(
        `converter reader: "${name}" is a legacy Office 97-2003 file (or a password-protected Office file), which cannot be read; open it in Office or LibreOffice, save it as .docx, .xlsx or .pptx without a password and upload that`,
      );
    case 'gif':
      throw unprocessable(`converter reader: "${name}" is a GIF image, which the converter does not read; convert it to PNG and upload that`);
    case undefined:
      break;
    default:
      return { format: signature, family: IMAGE_FORMATS.has(signature) ? 'image' : 'media' };
  }
  const text = decodeTextBytes(data);
  if (promised && !TEXT_FAMILIES.has(promised)) {
    throw unprocessable(`converter reader: "${name}" is named as ${familyName(promised)}, but its content is not one (${text === undefined ? 'no known file signature' : 'it is plain text'})`);
  }
  if (text === undefined) throw unprocessable(`converter reader: "${name}" is not a format the converter reads (no known file signature, and it is not text)`);
  const kind = textKind(text, name, promised);
  if (kind) return { ...kind, text };
  switch (promised) {
    case 'asciidoc':
    case 'latex':
    case 'csv':
    case 'markdown':
      return { format: promised, family: promised, text };
    case 'vtt':
      throw unprocessable(`converter reader: "${name}" is not WebVTT: a captions file starts with "WEBVTT"`);
    case 'html':
    case 'xml':
      throw unprocessable(`converter reader: "${name}" is named as ${familyName(promised)}, but it does not start with markup`);
    default:
      return { format: 'text', family: 'text', text };
  }
}
