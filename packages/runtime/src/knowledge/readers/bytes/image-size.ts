/**
 * @module knowledge/readers/bytes/image-size
 * An image's size from its headers, before anything decodes it, robust to the tricks that hide
 * it: JPEG fill bytes (0xFF repeated before a marker) and any SOFn (an EXIF thumbnail inside
 * APP1 is skipped with its segment, never taken for the image); TIFF pages and sub-images
 * followed through every IFD (a tag given twice counts at its largest); GIF and WebP frames
 * beside their canvas; BMP's two header layouts. The answer is the largest picture (by pixels)
 * the file declares, since a decoder may allocate any of them; undefined when the headers cannot
 * be read, which the caller refuses rather than letting a decoder guess.
 */

export interface ImageSize {
  width: number;
  height: number;
}

type Reader = (at: number) => number;

function larger(a: ImageSize | undefined, b: ImageSize): ImageSize {
  return a === undefined || b.width * b.height > a.width * a.height ? b : a;
}

function pngSize(d: Uint8Array, be32: Reader): ImageSize | undefined {
  // The signature (8 bytes), then IHDR first: length (4), type (4), width, height.
  if (d.length < 24 || String.fromCharCode(...d.subarray(12, 16)) !== 'IHDR') return undefined;
  return { width: be32(16), height: be32(20) };
}

/** SOF0-3, 5-7, 9-11, 13-15 (not DHT C4, JPG C8, DAC CC), and DHP (DE), which has the same layout. */
function isFrameMarker(m: number): boolean {
  return (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) || m === 0xde;
}

export function jpegSize(d: Uint8Array): ImageSize | undefined {
  const be16 = (at: number) => (d[at]! << 8) | d[at + 1]!;
  let i = 2;
  while (i < d.length) {
    if (d[i] !== 0xff) return undefined;
    // Any number of fill bytes may precede a marker.
    while (i < d.length && d[i] === 0xff) i++;
    const marker = d[i++];
    if (marker === undefined) return undefined;
    // Markers without a segment: SOI, RST0-7, TEM.
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) continue;
    // End of image, or a scan, before any frame header: no size.
    if (marker === 0xd9 || marker === 0xda || i + 2 > d.length) return undefined;
    const length = be16(i);
    if (length < 2) return undefined;
    if (isFrameMarker(marker)) return i + 7 <= d.length ? { height: be16(i + 3), width: be16(i + 5) } : undefined;
    i += length;
  }
  return undefined;
}

function tiffSize(d: Uint8Array): ImageSize | undefined {
  const little = d[0] === 0x49;
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  const u16: Reader = (at) => view.getUint16(at, little);
  const u32: Reader = (at) => view.getUint32(at, little);
  const fits = (at: number, length: number) => at >= 8 && at + length <= d.length;
  let best: ImageSize | undefined;
  const queue = [u32(4)];
  const seen = new Set<number>();
  while (queue.length > 0 && seen.size < 1024) {
    const ifd = queue.shift()!;
    if (seen.has(ifd) || !fits(ifd, 2)) continue;
    seen.add(ifd);
    const count = u16(ifd);
    if (!fits(ifd, 6 + count * 12)) return undefined;
    let width: number | undefined;
    let height: number | undefined;
    for (let e = 0; e < count; e++) {
      const at = ifd + 2 + e * 12;
      const tag = u16(at);
      const type = u16(at + 2);
      const value = type === 3 || type === 8 ? u16(at + 8) : u32(at + 8);
      // A tag given twice counts at its largest: a decoder may take either.
      if (tag === 256) width = Math.max(width ?? 0, value);
      if (tag === 257) height = Math.max(height ?? 0, value);
      // SubIFDs: one offset in the entry, or a list of them at its offset.
      if (tag === 330 && (type === 4 || type === 13)) {
        const n = Math.min(u32(at + 4), 64);
        if (n === 1) queue.push(value);
        else for (let k = 0; k < n; k++) if (fits(value + k * 4, 4)) queue.push(u32(value + k * 4));
      }
    }
    if (width !== undefined && height !== undefined) best = larger(best, { width, height });
    const next = u32(ifd + 2 + count * 12);
    if (next !== 0) queue.push(next);
  }
  return best;
}

function bmpSize(d: Uint8Array, view: DataView): ImageSize | undefined {
  if (d.length < 26) return undefined;
  if (view.getUint32(14, true) === 12) return { width: view.getUint16(18, true), height: view.getUint16(20, true) };
  return { width: Math.abs(view.getInt32(18, true)), height: Math.abs(view.getInt32(22, true)) };
}

/** The size of a GIF colour table, from the flags byte before it. */
const gifTable = (flags: number) => ((flags & 0x80) !== 0 ? 3 * 2 ** ((flags & 7) + 1) : 0);

function gifSize(d: Uint8Array): ImageSize | undefined {
  if (d.length < 13) return undefined;
  const le16 = (at: number) => d[at]! | (d[at + 1]! << 8);
  let best = larger(undefined, { width: le16(6), height: le16(8) });
  // Sub-blocks: a length byte and that many bytes, until a zero length.
  const skipBlocks = (at: number) => {
    while (at < d.length && d[at] !== 0) at += d[at]! + 1;
    return at + 1;
  };
  let i = 13 + gifTable(d[10]!);
  while (i < d.length) {
    const block = d[i];
    if (block === 0x21) i = skipBlocks(i + 2);
    else if (block === 0x2c && i + 10 <= d.length) {
      best = larger(best, { width: le16(i + 5), height: le16(i + 7) });
      i = skipBlocks(i + 10 + gifTable(d[i + 9]!) + 1);
    } else break;
  }
  return best;
}

function webpSize(d: Uint8Array): ImageSize | undefined {
  const le16 = (at: number) => d[at]! | (d[at + 1]! << 8);
  const le24 = (at: number) => d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16);
  const le32 = (at: number) => le24(at) + d[at + 3]! * 0x1000000;
  let best: ImageSize | undefined;
  const chunks = (from: number, to: number, depth: number) => {
    let at = from;
    while (at + 8 <= to) {
      const kind = String.fromCharCode(...d.subarray(at, at + 4));
      const size = le32(at + 4);
      const body = at + 8;
      const end = Math.min(to, body + size);
      if (kind === 'VP8 ' && body + 10 <= end) best = larger(best, { width: le16(body + 6) & 0x3fff, height: le16(body + 8) & 0x3fff });
      if (kind === 'VP8L' && body + 5 <= end) {
        const [b1, b2, b3, b4] = [d[body + 1]!, d[body + 2]!, d[body + 3]!, d[body + 4]!];
        best = larger(best, { width: 1 + (((b2 & 0x3f) << 8) | b1), height: 1 + (((b4 & 0xf) << 10) | (b3 << 2) | ((b2 & 0xc0) >> 6)) });
      }
      if (kind === 'VP8X' && body + 10 <= end) best = larger(best, { width: 1 + le24(body + 4), height: 1 + le24(body + 7) });
      if (kind === 'ANMF' && body + 16 <= end) {
        best = larger(best, { width: 1 + le24(body + 6), height: 1 + le24(body + 9) });
        if (depth === 0) chunks(body + 16, end, 1);
      }
      at = body + size + (size % 2);
    }
  };
  chunks(12, d.length, 0);
  return best;
}

/** The largest picture an image's headers declare; undefined when they cannot be read. */
export function imageSize(data: Uint8Array, format: string): ImageSize | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  try {
    switch (format) {
      case 'png':
        return pngSize(data, (at) => view.getUint32(at));
      case 'jpeg':
        return jpegSize(data);
      case 'tiff':
        return tiffSize(data);
      case 'bmp':
        return bmpSize(data, view);
      case 'gif':
        return gifSize(data);
      case 'webp':
        return webpSize(data);
      default:
        return undefined;
    }
  } catch {
    // A header cut short.
    return undefined;
  }
}
