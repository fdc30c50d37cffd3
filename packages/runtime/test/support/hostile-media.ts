/**
 * @module test/support/hostile-media
 * Images and PDFs that claim far more pixels, or decode to far more bytes, than they hold, built
 * in code for the budget tests: headers of every image format the converter sniffs claiming
 * 50,000 x 50,000 (and the tricks that hid such a claim from the old header reader), and PDFs
 * with a 20,000 x 20,000 image, a JPEG that lies to its dictionary, a huge page, or a Flate bomb.
 *
 * API (every function returns the file's bytes):
 * - images: `pngClaiming`, `bmpClaiming` (width, height); `jpegClaiming(w, h, { fill, thumbnail })`;
 *   `tiffClaiming(pages)` (pairs per IFD, a pair repeated is a duplicate tag);
 *   `gifClaiming` (the frame, not the screen, claims the size; the converter refuses GIF anyway);
 *   `webpClaiming(canvas, frame?)`;
 * - PDFs: `pdfWithHugeImage(side)`, `pdfWithLyingJpeg(side)`, `pdfWithHugePage(points)`,
 *   `pdfFlateBomb(mib)`, `pdfChainedBomb(mib)`, `pdfManyBombs(count, mib)`; `pdfOf(objects)` builds
 *   others (object 1 the catalog, cross-reference table written).
 * None has a text layer, so the pdf reader refuses each for want of text if nothing else stops it.
 */
import { deflatedRepeat, SPACES_MIB } from './hostile-files.js';

const be16 = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const be32 = (n: number) => [...be16(n >>> 16), ...be16(n & 0xffff)];
const le16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const le24 = (n: number) => [...le16(n & 0xffff), (n >> 16) & 0xff];
const le32 = (n: number) => [...le16(n & 0xffff), ...le16(n >>> 16)];

export function pngClaiming(width: number, height: number): Uint8Array {
  const ihdr = [...be32(13), ...Buffer.from('IHDR'), ...be32(width), ...be32(height), 8, 2, 0, 0, 0, 0, 0, 0, 0];
  return Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...ihdr, ...be32(0), ...Buffer.from('IEND'), 0xae, 0x42, 0x60, 0x82]);
}

const sof0 = (width: number, height: number) => [0xc0, ...be16(17), 8, ...be16(height), ...be16(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];

/**
 * A JPEG whose frame header claims `width` x `height`. `fill`: 0xFF fill bytes before its
 * markers (legal, and what hid the size from the old reader); `thumbnail`: an EXIF APP1 first,
 * holding a small JPEG whose own frame header must not be taken for the image's.
 */
export function jpegClaiming(width: number, height: number, options: { fill?: boolean; thumbnail?: boolean } = {}): Uint8Array {
  const marker = (m: number) => (options.fill ? [0xff, 0xff, 0xff, m] : [0xff, m]);
  const app0 = [...marker(0xe0), ...be16(16), ...Buffer.from('JFIF\u0000'), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const thumb = [0xff, 0xd8, 0xff, ...sof0(160, 120), 0xff, 0xd9];
  const app1 = options.thumbnail ? [...marker(0xe1), ...be16(2 + 6 + thumb.length), ...Buffer.from('Exif\u0000\u0000'), ...thumb] : [];
  const [, ...frame] = sof0(width, height);
  return Uint8Array.from([0xff, 0xd8, ...app0, ...app1, ...marker(0xc0), ...frame, 0xff, 0xda, ...be16(12), 3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0, 0, 0xff, 0xd9]);
}

/** A little-endian TIFF whose IFDs each give (width, height) pairs in order: a pair repeated in one IFD is a duplicate tag. */
export function tiffClaiming(pages: readonly (readonly [number, number][])[]): Uint8Array {
  const out: number[] = [0x49, 0x49, 42, 0, ...le32(8)];
  pages.forEach((tags, page) => {
    const entries = tags.flatMap(([w, h]) => [
      [256, w],
      [257, h],
    ]);
    out.push(...le16(entries.length));
    for (const [tag, value] of entries) out.push(...le16(tag!), ...le16(4), ...le32(1), ...le32(value!));
    const next = page + 1 < pages.length ? out.length + 4 : 0;
    out.push(...le32(next));
  });
  return Uint8Array.from(out);
}

export function gifClaiming(width: number, height: number): Uint8Array {
  return Uint8Array.from([...Buffer.from('GIF89a'), ...le16(1), ...le16(1), 0, 0, 0, 0x2c, ...le16(0), ...le16(0), ...le16(width), ...le16(height), 0, 2, 2, 0x4c, 0x01, 0, 0x3b]);
}

export function bmpClaiming(width: number, height: number): Uint8Array {
  const out = Buffer.alloc(54 + 16);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(-height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  return new Uint8Array(out);
}

/** A WebP: a VP8X canvas of `canvas`, and (when given) an animation frame of `frame`, which the old reader never looked at. */
export function webpClaiming(canvas: [number, number], frame?: [number, number]): Uint8Array {
  const chunk = (kind: string, body: number[]) => [...Buffer.from(kind), ...le32(body.length), ...body, ...(body.length % 2 ? [0] : [])];
  const vp8x = chunk('VP8X', [0x02, 0, 0, 0, ...le24(canvas[0] - 1), ...le24(canvas[1] - 1)]);
  const anmf = frame ? chunk('ANMF', [...le24(0), ...le24(0), ...le24(frame[0] - 1), ...le24(frame[1] - 1), ...le24(100), 0]) : [];
  const body = [...Buffer.from('WEBP'), ...vp8x, ...anmf];
  return Uint8Array.from([...Buffer.from('RIFF'), ...le32(body.length), ...body]);
}

type PdfObject = string | { dict: string; stream: Uint8Array };

/** A PDF of `objects` (numbered from 1; object 1 the catalog), with a correct cross-reference table. */
export function pdfOf(objects: readonly PdfObject[]): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n', 'latin1')];
  let size = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(size);
    const body =
      typeof object === 'string'
        ? [Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1')]
        : [Buffer.from(`${i + 1} 0 obj\n<< ${object.dict} /Length ${object.stream.length} >>\nstream\n`, 'latin1'), Buffer.from(object.stream), Buffer.from('\nendstream\nendobj\n', 'latin1')];
    parts.push(...body);
    size += body.reduce((n, b) => n + b.length, 0);
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

/** zlib-wrapped deflate of `mib` MiB of `unit` (the checksum is never reached). */
function zlibBomb(unit: string, mib: number): Uint8Array {
  return new Uint8Array(Buffer.concat([Buffer.from([0x78, 0xda]), deflatedRepeat(unit, mib).raw, Buffer.alloc(4)]));
}

/** One page of `mediaBox` drawing image object 4 (when given), with no text. */
function onePage(mediaBox: string, image?: { dict: string; stream: Uint8Array }): Uint8Array {
  const content = image ? 'q 500 0 0 500 50 150 cm /Im0 Do Q' : '0 0 m 10 10 l S';
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox ${mediaBox} /Resources << ${image ? '/XObject << /Im0 4 0 R >>' : ''} >> /Contents 5 0 R >>`,
    image ?? '<< >>',
    { dict: '', stream: Buffer.from(content, 'latin1') },
  ]);
}

/** A page showing a `size` x `size` RGB image, its pixels a Flate bomb of zeros (~1 KB per MiB). */
export function pdfWithHugeImage(size: number): Uint8Array {
  const mib = Math.ceil((size * size * 3) / (1024 * 1024));
  const image = { dict: `/Type /XObject /Subtype /Image /Width ${size} /Height ${size} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`, stream: zlibBomb('\u0000'.repeat(1024 * 1024), mib) };
  return onePage('[0 0 612 792]', image);
}

/** A page showing an image whose dictionary says 100 x 100 but whose JPEG data says `size` x `size`. */
export function pdfWithLyingJpeg(size: number): Uint8Array {
  const image = { dict: '/Type /XObject /Subtype /Image /Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode', stream: jpegClaiming(size, size) };
  return onePage('[0 0 612 792]', image);
}

/** One page of `points` x `points` points (the old render floor of 0.1 drew it at a tenth of that in pixels). */
export function pdfWithHugePage(points: number): Uint8Array {
  return onePage(`[0 0 ${points} ${points}]`);
}

/** A page whose content stream is a Flate bomb of `mib` MiB of whitespace. */
export function pdfFlateBomb(mib: number): Uint8Array {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    { dict: '/Filter /FlateDecode', stream: zlibBomb(SPACES_MIB, mib) },
  ]);
}

/** The same bomb behind an ASCIIHex layer, to show chained filters are followed. */
export function pdfChainedBomb(mib: number): Uint8Array {
  const inner = zlibBomb(SPACES_MIB, mib);
  const hex = `${Buffer.from(inner).toString('hex')}>`;
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    { dict: '/Filter [/ASCIIHexDecode /FlateDecode]', stream: Buffer.from(hex, 'latin1') },
  ]);
}

/** A page whose `count` content streams are each a Flate bomb of `mib` MiB: each within the part budget, together past the file's. */
export function pdfManyBombs(count: number, mib: number): Uint8Array {
  const streams = Array.from({ length: count }, () => ({ dict: '/Filter /FlateDecode', stream: zlibBomb(SPACES_MIB, mib) }));
  const refs = streams.map((_, i) => `${i + 4} 0 R`).join(' ');
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${refs}] >>`,
    ...streams,
  ]);
}
