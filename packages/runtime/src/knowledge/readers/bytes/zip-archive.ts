/**
 * @module knowledge/readers/bytes/zip-archive
 * A small zip reader of our own that inflates under a budget, for every zip-based format
 * (docx, xlsx, pptx, epub). JSZip (and the libraries built on it) inflate a part whole and only
 * then compare its size with the one the zip declares, so a part whose header understates its
 * size, or states 2 GiB and more (which JSZip reads as a negative number), is inflated to
 * gigabytes before anything objects. Here:
 *
 * - the central directory is read with unsigned sizes and zip64 extra fields, so every declared
 *   size is the one the file states;
 * - a part is inflated with zlib's `maxOutputLength` set to what is left of the budgets (the
 *   part's, the XML part's when it is parsed whole, the whole file's), so inflation stops at the
 *   budget whatever the headers claim, and the breach names the limit and its setting;
 * - every read is counted toward the file's budget, so a part read again and again (a deck
 *   listing one slide a thousand times) uses the budget up like as many parts (`recount` does
 *   the same for a reader that reuses its first reading);
 * - a part that inflates to another size than its zip directory declares is refused as damaged,
 *   as JSZip did after inflating it.
 *
 * Parts are stored (method 0) or deflated (method 8); other methods and encrypted parts are
 * refused. `storedZip` writes parts back as a stored zip for a library that opens the zip
 * itself (exceljs), so it inflates nothing.
 */
import { crc32, inflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import { unprocessable } from '../../../errors.js';
import { CONTENT_LIMIT_VARIABLES, sizeText, type ContentLimits } from '../../../settings/content-limits.js';

const inflateRawAsync = promisify(inflateRaw);

/** One file of the archive, as its central directory describes it. */
export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  /** The uncompressed size the central directory declares (a zip64 field when there is one). */
  declaredSize: number;
  headerOffset: number;
}

/** Who reads the archive, for messages: `docx reader: "report.docx" ...`. */
export interface ZipLabel {
  fileName: string;
  readerId: string;
}

export interface PartBound {
  /** An explicit limit in bytes (a part that is never large); past it the part is refused as damaged. */
  limit?: number;
  /** The part is parsed whole into a tree, so `maxXmlPartBytes` bounds it too. */
  xml?: boolean;
}

const u16 = (d: Uint8Array, at: number) => d[at]! | (d[at + 1]! << 8);
const u32 = (d: Uint8Array, at: number) => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16)) + d[at + 3]! * 0x1000000;
const u64 = (d: Uint8Array, at: number) => u32(d, at) + u32(d, at + 4) * 2 ** 32;

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const names = new TextDecoder('utf-8');

function need(d: Uint8Array, at: number, length: number, what: string): void {
  if (at < 0 || at + length > d.length) throw new Error(`its ${what} lies outside the file`);
}

/** Where the central directory is and how many entries it has, zip64 included. */
function directory(d: Uint8Array): { offset: number; count: number } {
  let eocd = -1;
  for (let at = d.length - 22; at >= Math.max(0, d.length - 22 - 0xffff); at--) {
    if (u32(d, at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new Error('its end of central directory is missing');
  let count = u16(d, eocd + 10);
  let offset = u32(d, eocd + 16);
  if (count === 0xffff || offset === 0xffffffff || u32(d, eocd + 12) === 0xffffffff) {
    const locator = eocd - 20;
    if (locator >= 0 && u32(d, locator) === ZIP64_LOCATOR) {
      const at = u64(d, locator + 8);
      need(d, at, 56, 'zip64 end of central directory');
      if (u32(d, at) !== ZIP64_EOCD) throw new Error('its zip64 end of central directory is missing');
      count = u64(d, at + 32);
      offset = u64(d, at + 48);
    }
  }
  return { offset, count };
}

/** The zip64 extra field's values for the fields the fixed header left at their maximum. */
function zip64Sizes(d: Uint8Array, at: number, length: number, entry: ZipEntry): void {
  const end = at + length;
  while (at + 4 <= end) {
    const id = u16(d, at);
    const size = u16(d, at + 2);
    let p = at + 4;
    if (id === 0x0001) {
      const take = () => {
        if (p + 8 > Math.min(end, at + 4 + size)) throw new Error(`the zip64 field of ${entry.name} is too short`);
        const value = u64(d, p);
        p += 8;
        return value;
      };
      if (entry.declaredSize === 0xffffffff) entry.declaredSize = take();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = take();
      if (entry.headerOffset === 0xffffffff) entry.headerOffset = take();
      return;
    }
    at += 4 + size;
  }
}

/** The archive's files in directory order (folders left out; a repeated name keeps its last entry, as JSZip does). */
export function readDirectory(d: Uint8Array): Map<string, ZipEntry> {
  const { offset, count } = directory(d);
  const entries = new Map<string, ZipEntry>();
  let at = offset;
  for (let i = 0; i < count; i++) {
    need(d, at, 46, 'central directory');
    if (u32(d, at) !== CENTRAL) throw new Error('its central directory is damaged');
    const nameLength = u16(d, at + 28);
    const extraLength = u16(d, at + 30);
    need(d, at + 46, nameLength + extraLength + u16(d, at + 32), 'central directory');
    const entry: ZipEntry = {
      name: names.decode(d.subarray(at + 46, at + 46 + nameLength)),
      flags: u16(d, at + 8),
      method: u16(d, at + 10),
      compressedSize: u32(d, at + 20),
      declaredSize: u32(d, at + 24),
      headerOffset: u32(d, at + 42),
    };
    zip64Sizes(d, at + 46 + nameLength, extraLength, entry);
    if (!entry.name.endsWith('/')) {
      entries.delete(entry.name);
      entries.set(entry.name, entry);
    }
    at += 46 + nameLength + extraLength + u16(d, at + 32);
  }
  return entries;
}

function reasonOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/** A zip opened for reading under the content limits; see the module's comment. */
export class ZipArchive {
  private inflated = 0;

  private constructor(
    private readonly data: Uint8Array,
    private readonly entries: Map<string, ZipEntry>,
    readonly limits: ContentLimits,
    private readonly label: ZipLabel,
  ) {}

  /** Reads the central directory; throws a plain Error saying what is wrong with it. */
  static open(data: Uint8Array, limits: ContentLimits, label: ZipLabel): ZipArchive {
    return new ZipArchive(data, readDirectory(data), limits, label);
  }

  /** The files' names, in directory order. */
  get fileNames(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The sum of the sizes the directory declares. */
  get declaredBytes(): number {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.declaredSize;
    return total;
  }

  /** Bytes inflated so far, every read counted. */
  get inflatedBytes(): number {
    return this.inflated;
  }

  /**
   * Counts `bytes` toward the file's budget as if they were inflated again, for a reader that
   * reuses what it made of a part it already read (so a part listed many times costs its bytes
   * each time, as a fresh read would, without the work); refuses (422) past the budget.
   */
  recount(bytes: number, label: ZipLabel = this.label): void {
    if (this.inflated + bytes > this.limits.maxInflatedBytes) throw unprocessable(this.fileBreach(label));
    this.inflated += bytes;
  }

  private fileBreach(label: ZipLabel): string {
    return `${label.readerId} reader: "${label.fileName}" inflates past ${sizeText(this.limits.maxInflatedBytes)} (${CONTENT_LIMIT_VARIABLES.maxInflatedBytes})`;
  }

  /**
   * A part's bytes, or undefined when there is no such part. Refuses (422) a part that would
   * pass a budget, naming the limit and its setting, and a damaged part.
   */
  async read(name: string, bound: PartBound = {}, label: ZipLabel = this.label): Promise<Uint8Array | undefined> {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    const who = `${label.readerId} reader: "${label.fileName}"`;
    const damaged = (reason: string, cause?: unknown) => unprocessable(`${who} has a damaged part ${name} (${reason})`, cause);
    // The tightest bound decides, and names itself when it is passed.
    const bounds: [number, () => string][] = [
      [this.limits.maxInflatedBytes - this.inflated, () => this.fileBreach(label)],
      [this.limits.maxPartBytes, () => `${who} has a part ${name} that inflates past ${sizeText(this.limits.maxPartBytes)} (${CONTENT_LIMIT_VARIABLES.maxPartBytes})`],
    ];
    if (bound.xml) bounds.push([this.limits.maxXmlPartBytes, () => `${who} has an XML part ${name} larger than ${sizeText(this.limits.maxXmlPartBytes)} (${CONTENT_LIMIT_VARIABLES.maxXmlPartBytes})`]);
    if (bound.limit !== undefined) bounds.push([bound.limit, () => `${who} has a damaged part ${name} (it inflates to more than ${bound.limit} bytes)`]);
    const [cap, breach] = bounds.reduce((a, b) => (b[0] <= a[0] ? b : a));
    const refuse = (cause?: unknown) => unprocessable(breach(), cause);

    if ((entry.flags & 1) !== 0) throw damaged('it is encrypted');
    const header = entry.headerOffset;
    if (header + 30 > this.data.length || u32(this.data, header) !== LOCAL) throw damaged('its local header is missing');
    const start = header + 30 + u16(this.data, header + 26) + u16(this.data, header + 28);
    if (start + entry.compressedSize > this.data.length) throw damaged('its data runs past the end of the file');
    const raw = this.data.subarray(start, start + entry.compressedSize);
    let out: Uint8Array;
    if (entry.method === 0) {
      out = raw;
    } else if (entry.method === 8) {
      try {
        out = await inflateRawAsync(raw, { maxOutputLength: Math.max(1, cap) });
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || cause instanceof RangeError) throw refuse(cause);
        throw damaged(reasonOf(cause), cause);
      }
    } else {
      throw damaged(`it uses compression method ${entry.method}, which is not supported`);
    }
    if (out.length > cap) throw refuse();
    this.inflated += out.length;
    if (out.length !== entry.declaredSize) throw damaged(`it inflates to ${out.length} bytes, not the ${entry.declaredSize} its zip directory declares`);
    return out;
  }
}

/** A zip of `parts`, stored (not compressed), in their order. */
export function storedZip(parts: readonly { name: string; data: Uint8Array }[]): Uint8Array {
  if (parts.length > 0xffff) throw new Error(`a stored zip holds at most 65535 parts, not ${parts.length}`);
  const encoded = parts.map((p) => ({ name: Buffer.from(p.name, 'utf8'), data: p.data }));
  const localSize = encoded.reduce((n, p) => n + 30 + p.name.length + p.data.length, 0);
  const centralSize = encoded.reduce((n, p) => n + 46 + p.name.length, 0);
  const out = Buffer.alloc(localSize + centralSize + 22);
  let at = 0;
  const offsets: number[] = [];
  const crcs: number[] = [];
  for (const p of encoded) {
    const crc = crc32(p.data);
    offsets.push(at);
    crcs.push(crc);
    out.writeUInt32LE(LOCAL, at);
    out.writeUInt16LE(20, at + 4);
    // Bit 11: the name is UTF-8.
    out.writeUInt16LE(0x0800, at + 6);
    out.writeUInt32LE(crc, at + 14);
    out.writeUInt32LE(p.data.length, at + 18);
    out.writeUInt32LE(p.data.length, at + 22);
    out.writeUInt16LE(p.name.length, at + 26);
    p.name.copy(out, at + 30);
    out.set(p.data, at + 30 + p.name.length);
    at += 30 + p.name.length + p.data.length;
  }
  encoded.forEach((p, i) => {
    out.writeUInt32LE(CENTRAL, at);
    out.writeUInt16LE(20, at + 4);
    out.writeUInt16LE(20, at + 6);
    out.writeUInt16LE(0x0800, at + 8);
    out.writeUInt32LE(crcs[i]!, at + 16);
    out.writeUInt32LE(p.data.length, at + 20);
    out.writeUInt32LE(p.data.length, at + 24);
    out.writeUInt16LE(p.name.length, at + 28);
    out.writeUInt32LE(offsets[i]!, at + 42);
    p.name.copy(out, at + 46);
    at += 46 + p.name.length;
  });
  out.writeUInt32LE(EOCD, at);
  out.writeUInt16LE(encoded.length, at + 8);
  out.writeUInt16LE(encoded.length, at + 10);
  out.writeUInt32LE(centralSize, at + 12);
  out.writeUInt32LE(localSize, at + 16);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}
