/**
 * @module knowledge/readers/bytes/pdf-scan
 * A look at a PDF's streams before PDF.js opens it, since PDF.js decodes a stream whole, with
 * no bound, whatever it expands to (a Flate bomb of a few MB becomes gigabytes):
 *
 * - every stream (`<< ... >> stream`) is found in the file's bytes (a stream is never inside an
 *   object stream) and its filters (FlateDecode, LZW, RunLength, ASCII85/Hex, chained) decoded
 *   under the content limits, counting what comes out: one stream past `maxPartBytes`, or all of
 *   them past `maxInflatedBytes`, refuses the file naming the limit and its setting. Flate data
 *   is fed from the stream's start to the file's end (zlib stops at its own end), so a wrong
 *   `/Length` or an `endstream` planted inside the data cannot cut the count short;
 * - image streams are not counted (PDF.js only decodes an image when a page is rendered, and
 *   then no more than its width x height); their declared sizes are collected instead: the
 *   dictionary's `/Width` x `/Height` and, for JPEG, JPEG 2000 and JBIG2 data, the size the
 *   codec's own header declares, which is what PDF.js's decoder allocates;
 * - embedded files (attachments) are left alone: PDF.js does not decode them for text or pages.
 *
 * Not covered: an encrypted PDF's streams are ciphertext here (PDF.js opens such a file with an
 * empty user password), so `encrypted` is reported and their sizes are not measured.
 */
import { unprocessable } from '../../../errors.js';
import { CONTENT_LIMIT_VARIABLES, sizeText, type ContentLimits } from '../../../settings/content-limits.js';
import { jpegSize, type ImageSize } from './image-size.js';
import { decode, decoderOf } from './pdf-filters.js';

/** An image XObject: where it is, the size its dictionary declares, and the size its codec data declares. */
export interface PdfImage {
  where: string;
  width: number | undefined;
  height: number | undefined;
  codec?: ImageSize;
}

export interface PdfScan {
  images: PdfImage[];
  /** The streams are encrypted, so their decoded sizes were not measured. */
  encrypted: boolean;
  /** Bytes all measured streams decode to. */
  decodedBytes: number;
}

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0x00;

/** The index of the `<<` opening the dictionary whose `>>` ends at `close` (the second `>`), or -1. */
function dictionaryStart(buf: Buffer, close: number): number {
  let depth = 0;
  const stop = Math.max(0, close - 1024 * 1024);
  for (let i = close; i > stop; i--) {
    if (buf[i] === 0x3e && buf[i - 1] === 0x3e) {
      depth++;
      i--;
    } else if (buf[i] === 0x3c && buf[i - 1] === 0x3c) {
      depth--;
      i--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The dictionary's own entries: nested dictionaries and strings taken out. */
function topLevel(dict: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < dict.length; i++) {
    const c = dict[i]!;
    if (c === '<' && dict[i + 1] === '<') {
      depth++;
      i++;
      continue;
    }
    if (c === '>' && dict[i + 1] === '>') {
      depth--;
      i++;
      continue;
    }
    if (c === '(') {
      // A literal string, with nested parentheses and escapes.
      let level = 1;
      while (++i < dict.length && level > 0) {
        if (dict[i] === '\\') i++;
        else if (dict[i] === '(') level++;
        else if (dict[i] === ')') level--;
      }
      i--;
      continue;
    }
    if (depth === 1) out += c;
  }
  return out;
}

function key(dict: string, name: string): string | undefined {
  const match = new RegExp(`/${name}(?![\\w.#-])\\s*(\\[[^\\]]*\\]|/[^\\s/\\[\\]<>()]+|\\d+\\s+\\d+\\s+R|-?[\\d.]+)`).exec(dict);
  return match?.[1];
}

export async function scanPdf(data: Uint8Array, limits: ContentLimits, who: string): Promise<PdfScan> {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const encrypted = buf.includes('/Encrypt');
  const images: PdfImage[] = [];
  /** A whole number given directly or through `N G R` (a top-level object holding just the number). */
  const integer = (value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const ref = /^(\d+)\s+(\d+)\s+R$/.exec(value);
    if (!ref) return /^\d+$/.test(value) ? Number(value) : undefined;
    let at = -1;
    while ((at = buf.indexOf(`${ref[1]} ${ref[2]} obj`, at + 1, 'latin1')) >= 0) {
      if (at > 0 && !isSpace(buf[at - 1])) continue;
      const number = /^\s*(\d+)\s+endobj/.exec(buf.toString('latin1', at + ref[1]!.length + ref[2]!.length + 5, at + ref[1]!.length + ref[2]!.length + 40));
      return number ? Number(number[1]) : undefined;
    }
    return undefined;
  };
  let total = 0;
  let at = 0;
  while ((at = buf.indexOf('stream', at, 'latin1')) >= 0) {
    const keyword = at;
    at += 6;
    if (keyword >= 3 && buf.toString('latin1', keyword - 3, keyword) === 'end') continue;
    let close = keyword - 1;
    while (close > 0 && isSpace(buf[close])) close--;
    if (buf[close] !== 0x3e || buf[close - 1] !== 0x3e) continue;
    const open = dictionaryStart(buf, close);
    const dict = open >= 0 ? topLevel(buf.toString('latin1', open, close + 1)) : '';
    const object = open >= 0 ? /(\d+)\s+(\d+)\s+obj\s*$/.exec(buf.toString('latin1', Math.max(0, open - 32), open)) : null;
    const where = object ? `object ${object[1]} ${object[2]}` : `the stream at byte ${keyword}`;
    // The data starts after the end of the line that holds the keyword.
    let start = at;
    while (start < buf.length && buf[start] !== 0x0a && buf[start] !== 0x0d) start++;
    if (buf[start] === 0x0d) start++;
    if (buf[start] === 0x0a) start++;
    const length = integer(key(dict, 'Length'));
    let end = length !== undefined && start + length <= buf.length ? start + length : -1;
    if (end >= 0) {
      let after = end;
      while (after < buf.length && isSpace(buf[after])) after++;
      if (buf.toString('latin1', after, after + 9) !== 'endstream') end = -1;
    }
    if (end < 0) end = buf.indexOf('endstream', start, 'latin1');
    if (end < 0) end = buf.length;
    const filters = (key(dict, 'Filter') ?? '').match(/\/[^\s/[\]]+/g)?.map((f) => f.slice(1)) ?? [];
    if (/\/Type\s*\/EmbeddedFile\b/.test(dict)) continue;
    if (/\/Subtype\s*\/Image\b/.test(dict)) {
      images.push({ where, width: integer(key(dict, 'Width')), height: integer(key(dict, 'Height')), ...codecSize(filters, buf.subarray(start, end)) });
      continue;
    }
    // With no filter PDF.js could read, zlib data is still measured: the filter may be given indirectly.
    const chain = filters.length > 0 ? filters : buf[start] === 0x78 ? ['FlateDecode'] : [];
    const earlyChange = /\/EarlyChange\s+0\b/.test(buf.toString('latin1', Math.max(open, 0), close)) ? 0 : 1;
    let input: Uint8Array = decoderOf(chain[0] ?? '') === 'flate' ? buf.subarray(start) : buf.subarray(start, end);
    let size: number | undefined;
    for (const [i, filter] of chain.entries()) {
      const out = await decode(filter, input, limits.maxPartBytes, i < chain.length - 1, earlyChange);
      if (!out) break;
      if (out.over) throw unprocessable(`${who} has a stream (${where}) that decodes past ${sizeText(limits.maxPartBytes)} (${CONTENT_LIMIT_VARIABLES.maxPartBytes})`);
      size = out.size;
      if (!out.bytes) break;
      input = out.bytes;
    }
    total += size ?? 0;
    if (total > limits.maxInflatedBytes) {
      throw unprocessable(`${who} has streams that decode past ${sizeText(limits.maxInflatedBytes)} in all (${CONTENT_LIMIT_VARIABLES.maxInflatedBytes})`);
    }
  }
  return { images, encrypted, decodedBytes: total };
}

/** The size an image's codec data declares (JPEG, JPEG 2000, JBIG2), when the codec is its only filter. */
function codecSize(filters: string[], data: Uint8Array): { codec?: ImageSize } {
  const codec = filters.length === 1 ? filters[0] : undefined;
  let size: ImageSize | undefined;
  if (codec === 'DCTDecode' || codec === 'DCT') {
    // PDF.js skips anything before the JPEG's start marker.
    const soi = Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(Buffer.from([0xff, 0xd8]));
    size = soi >= 0 ? jpegSize(data.subarray(soi)) : undefined;
  } else if (codec === 'JPXDecode') {
    // The SIZ marker segment: Xsiz, Ysiz, XOsiz, YOsiz after its length and capabilities.
    const siz = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 65536)).indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51]));
    if (siz >= 0 && siz + 28 <= data.length) {
      const view = new DataView(data.buffer, data.byteOffset + siz);
      size = { width: view.getUint32(8) - view.getUint32(16), height: view.getUint32(12) - view.getUint32(20) };
    }
  } else if (codec === 'JBIG2Decode') {
    size = jbig2PageSize(data);
  }
  return size ? { codec: size } : {};
}

/** The page information segment's width and height in embedded JBIG2 data. */
function jbig2PageSize(d: Uint8Array): ImageSize | undefined {
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let at = 0;
  try {
    for (let segments = 0; segments < 64 && at + 11 <= d.length; segments++) {
      const number = view.getUint32(at);
      const flags = d[at + 4]!;
      let p = at + 5;
      let referred = d[p]! >> 5;
      if (referred === 7) {
        referred = view.getUint32(p) & 0x1fffffff;
        p += 4 + Math.ceil((referred + 1) / 8);
      } else p += 1;
      p += referred * (number <= 256 ? 1 : number <= 65536 ? 2 : 4);
      p += (flags & 0x40) !== 0 ? 4 : 1;
      const length = view.getUint32(p);
      p += 4;
      if ((flags & 0x3f) === 48) return { width: view.getUint32(p), height: view.getUint32(p + 4) === 0xffffffff ? 0 : view.getUint32(p + 4) };
      if (length === 0xffffffff) return undefined;
      at = p + length;
    }
  } catch {
    // Cut short.
  }
  return undefined;
}
