/**
 * Files for the converter's tests, built in code (nothing binary is committed): text rendered to
 * PNG/JPEG/WebP by @napi-rs/canvas, and BMP and TIFF written from the same pixels; a scanned
 * PDF (pdfkit with an image of text and no text layer); tar and .tar.gz archives; EPUB books;
 * WAV audio; and small helpers to re-label an Office file's main content type (a .docx as a
 * .dotm, a .pptx as a .ppsx).
 */
import { gzipSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import JSZip from 'jszip';
import PdfKitDocument from 'pdfkit';

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, row by row from the top. */
  rgba: Uint8ClampedArray;
}

/** Black text on white, in a sans-serif font large enough for OCR. */
export function textCanvas(lines: readonly string[], options: { width?: number; fontSize?: number } = {}) {
  const fontSize = options.fontSize ?? 44;
  const width = options.width ?? 1100;
  const height = Math.round(fontSize * 1.6 * lines.length + fontSize);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#000000';
  ctx.font = `${fontSize}px sans-serif`;
  lines.forEach((line, i) => ctx.fillText(line, 30, Math.round(fontSize * 1.3 + i * fontSize * 1.6)));
  return canvas;
}

export function textPixels(lines: readonly string[]): Pixels {
  const canvas = textCanvas(lines);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  return { width: canvas.width, height: canvas.height, rgba: new Uint8ClampedArray(data) };
}

export function textImage(lines: readonly string[], format: 'png' | 'jpeg' | 'webp'): Uint8Array {
  const canvas = textCanvas(lines);
  return new Uint8Array(format === 'png' ? canvas.toBuffer('image/png') : format === 'jpeg' ? canvas.toBuffer('image/jpeg', 95) : canvas.toBuffer('image/webp', 95));
}

/** A 24-bit bottom-up BMP. */
export function bmp({ width, height, rgba }: Pixels): Uint8Array {
  const row = Math.ceil((width * 3) / 4) * 4;
  const out = Buffer.alloc(54 + row * height);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(row * height, 34);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = ((height - 1 - y) * width + x) * 4;
      const to = 54 + y * row + x * 3;
      out[to] = rgba[from + 2]!;
      out[to + 1] = rgba[from + 1]!;
      out[to + 2] = rgba[from]!;
    }
  }
  return new Uint8Array(out);
}

/** An uncompressed baseline RGB TIFF (little-endian, one strip). */
export function tiff({ width, height, rgba }: Pixels): Uint8Array {
  const pixels = width * height * 3;
  const entries: [number, number, number][] = [
    [256, 4, width], [257, 4, height], [258, 3, 8], [259, 3, 1], [262, 3, 2], [273, 4, 0], [277, 3, 3], [278, 4, height], [279, 4, pixels],
  ];
  const ifdOffset = 8;
  const ifdSize = 2 + entries.length * 12 + 4;
  const bitsOffset = ifdOffset + ifdSize;
  const dataOffset = bitsOffset + 8;
  const out = Buffer.alloc(dataOffset + pixels);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(ifdOffset, 4);
  out.writeUInt16LE(entries.length, ifdOffset);
  entries.forEach(([tag, type, value], i) => {
    const at = ifdOffset + 2 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(tag === 258 ? 3 : 1, at + 4);
    if (tag === 258) out.writeUInt32LE(bitsOffset, at + 8);
    else if (tag === 273) out.writeUInt32LE(dataOffset, at + 8);
    else if (type === 3) out.writeUInt16LE(value, at + 8);
    else out.writeUInt32LE(value, at + 8);
  });
  out.writeUInt16LE(8, bitsOffset);
  out.writeUInt16LE(8, bitsOffset + 2);
  out.writeUInt16LE(8, bitsOffset + 4);
  for (let i = 0; i < width * height; i++) {
    out[dataOffset + i * 3] = rgba[i * 4]!;
    out[dataOffset + i * 3 + 1] = rgba[i * 4 + 1]!;
    out[dataOffset + i * 3 + 2] = rgba[i * 4 + 2]!;
  }
  return new Uint8Array(out);
}

/** A PDF whose pages are pictures of text (no text layer), as a scanner writes them; `textPages` adds real text pages after. */
export function scannedPdf(imagePages: readonly (readonly string[])[], textPages: readonly string[] = []): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const doc = new PdfKitDocument({ autoFirstPage: false, info: { CreationDate: new Date(0) } });
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(parts))));
    doc.on('error', reject);
    for (const lines of imagePages) {
      doc.addPage({ size: 'A4' });
      doc.image(Buffer.from(textImage(lines, 'png')), 40, 60, { width: 515 });
    }
    for (const text of textPages) {
      doc.addPage({ size: 'A4' });
      doc.text(text);
    }
    doc.end();
  });
}

export interface TarEntry {
  path: string;
  data?: Uint8Array | string;
  /** tar type flag; default '0' (file). */
  type?: string;
  /** Written as a pax `path` record instead of the header's name fields. */
  pax?: boolean;
  linkName?: string;
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\u0000`;
}

function header(name: string, size: number, type: string, linkName = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 100), 0, 'utf8');
  h.write(octal(0o644, 8), 100, 'latin1');
  h.write(octal(0, 8), 108, 'latin1');
  h.write(octal(0, 8), 116, 'latin1');
  h.write(octal(size, 12), 124, 'latin1');
  h.write(octal(0, 12), 136, 'latin1');
  h.write('        ', 148, 'latin1');
  h.write(type, 156, 'latin1');
  h.write(linkName, 157, 'utf8');
  h.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
  return h;
}

function padded(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

/** One pax record: `<length> key=value\n`, the length counting its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const size = Buffer.byteLength(body);
  let length = size + 1;
  while (String(length).length + size !== length) length = String(length).length + size;
  return `${length}${body}`;
}

/** A ustar archive (pax records for long or flagged names); `gzip` for .tar.gz. */
export function tarArchive(entries: readonly TarEntry[], options: { gzip?: boolean } = { gzip: true }): Uint8Array {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    if (entry.pax || Buffer.byteLength(entry.path) > 100) {
      const pax = Buffer.from(paxRecord('path', entry.path));
      blocks.push(header('PaxHeader', pax.length, 'x'), padded(pax));
    }
    blocks.push(header(entry.path, entry.type === '5' || entry.type === '2' ? 0 : data.length, entry.type ?? '0', entry.linkName));
    if (entry.type !== '5' && entry.type !== '2') blocks.push(padded(data));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return new Uint8Array(options.gzip === false ? tar : gzipSync(tar));
}

export interface EpubChapter {
  file: string;
  title: string;
  body: string;
}

/** An EPUB 3 book: mimetype first and stored, container, OPF with manifest and spine in `order`. */
export async function epubBook(title: string, chapters: readonly EpubChapter[], order?: readonly string[]): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' });
  zip.file('META-INF/container.xml', '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>');
  const items = chapters.map((c, i) => `<item id="c${i}" href="${c.file}" media-type="application/xhtml+xml"/>`).join('');
  const spineOrder = order ?? chapters.map((c) => c.file);
  const spine = spineOrder.map((file) => `<itemref idref="c${chapters.findIndex((c) => c.file === file)}"/>`).join('');
  zip.file(
    'OEBPS/content.opf',
    `<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:test</dc:identifier><dc:title>${title}</dc:title><dc:language>en</dc:language></metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>${items}</manifest><spine>${spine}</spine></package>`,
  );
  zip.file('OEBPS/nav.xhtml', '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><nav><ol><li>Contents</li></ol></nav></body></html>');
  for (const c of chapters) {
    zip.file(
      `OEBPS/${c.file}`,
      `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>${c.title}</title></head><body><h1>${c.title}</h1>${c.body}</body></html>`,
    );
  }
  return zip.generateAsync({ type: 'uint8array', mimeType: 'application/epub+zip' });
}

/** Rewrites the main part's content type of an Office file (e.g. a .docx into a macro-enabled template). */
export async function relabelOffice(file: Uint8Array, from: RegExp, to: string): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(file);
  const types = await zip.file('[Content_Types].xml')!.async('string');
  zip.file('[Content_Types].xml', types.replace(from, to));
  return zip.generateAsync({ type: 'uint8array' });
}

/** A short WAV of silence (16-bit mono), enough for a transcription request. */
export function wavAudio(milliseconds = 200, sampleRate = 8000): Uint8Array {
  const samples = Math.round((sampleRate * milliseconds) / 1000);
  const out = Buffer.alloc(44 + samples * 2);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write('WAVEfmt ', 8, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(samples * 2, 40);
  return new Uint8Array(out);
}

/** An MP3-looking file: an ID3v2 header and a few MPEG frame headers (enough for sniffing and a fake service). */
export function mp3Audio(): Uint8Array {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
  const frame = Buffer.alloc(417);
  frame[0] = 0xff;
  frame[1] = 0xfb;
  frame[2] = 0x90;
  return new Uint8Array(Buffer.concat([id3, frame, frame]));
}

/** An MP4 container's opening `ftyp` box with the given major brand (`isom`, `M4A `, `qt  `). */
export function isoMedia(brand: string): Uint8Array {
  const box = Buffer.alloc(32);
  box.writeUInt32BE(32, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(brand, 8, 'latin1');
  box.write('isomiso2mp41', 16, 'latin1');
  return new Uint8Array(box);
}

/**
 * A hostile EPUB of a few tens of KB: one chapter of `chapterBytes` (a deflate-friendly run of
 * paragraphs) that the spine lists `times` times, so a reader that takes the book at its word
 * writes the chapter out `times` times (20 MB x 2,000: 40 GB of markdown).
 */
export async function loopingEpub(chapterBytes = 20_000_000, times = 2000): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' });
  zip.file('META-INF/container.xml', '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>');
  zip.file(
    'OEBPS/content.opf',
    `<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:loop</dc:identifier><dc:title>Loop</dc:title></metadata><manifest><item id="c0" href="one.xhtml" media-type="application/xhtml+xml"/></manifest><spine>${'<itemref idref="c0"/>'.repeat(times)}</spine></package>`,
  );
  const paragraph = '<p>x</p>';
  zip.file('OEBPS/one.xhtml', `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head><body>${paragraph.repeat(Math.ceil(chapterBytes / paragraph.length))}</body></html>`);
  return zip.generateAsync({ type: 'uint8array', mimeType: 'application/epub+zip', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}
