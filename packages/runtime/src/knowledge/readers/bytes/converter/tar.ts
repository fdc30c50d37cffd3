/**
 * @module knowledge/readers/bytes/converter/tar
 * Lists the regular files of a `.tar.gz` (or plain `.tar`) archive, bounded, with a reader of
 * our own: the format is small (512-byte headers, ustar names with a prefix, pax `path`
 * records and GNU long names), and owning it keeps every limit in one place.
 *
 * - gunzip is measured first, streamed and kept nowhere, and stopped past `maxBytes`, so a gzip
 *   bomb is refused having held nothing; an archive within the bound is then inflated once more
 *   into a buffer of its exact size (zlib's collected pieces would need twice that);
 * - at most `maxMembers` entries are looked at; the rest are left, and a note says so;
 * - a member path that is absolute or climbs out (`..`) is skipped with a note (nothing is ever
 *   written to disk, but such a name is a sign of a hostile archive and has no place in metadata);
 * - links, devices and directories are skipped; a damaged header (bad checksum) ends the listing
 *   with an error that says where.
 */
import { createGunzip } from 'node:zlib';
import { RuntimeError, unprocessable } from '../../../../errors.js';

export interface TarMember {
  path: string;
  data: Uint8Array;
}

export interface TarLimits {
  /** Inflated archive size at most. */
  maxBytes: number;
  /** Entries looked at, at most. */
  maxMembers: number;
}

export interface TarListing {
  members: TarMember[];
  notes: string[];
}

const BLOCK = 512;

function field(header: Uint8Array, start: number, length: number): string {
  const slice = header.subarray(start, start + length);
  const end = slice.indexOf(0);
  return new TextDecoder('utf-8').decode(end < 0 ? slice : slice.subarray(0, end));
}

/** An octal number field, or a GNU base-256 one (high bit set). */
function number(header: Uint8Array, start: number, length: number): number {
  if ((header[start]! & 0x80) !== 0) {
    let value = header[start]! & 0x7f;
    for (let i = 1; i < length; i++) value = value * 256 + header[start + i]!;
    return value;
  }
  const text = field(header, start, length).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function checksumOk(header: Uint8Array): boolean {
  const stored = number(header, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum === stored;
}

/** pax records: `<length> <key>=<value>\n`... */
function paxRecords(data: Uint8Array): Record<string, string> {
  const text = new TextDecoder('utf-8').decode(data);
  const out: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const space = text.indexOf(' ', i);
    if (space < 0) break;
    const length = Number(text.slice(i, space));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = text.slice(space + 1, i + length - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    i += length;
  }
  return out;
}

/** Undefined for a path that must not be used (absolute, or climbing out with `..`). */
export function safeMemberPath(path: string): string | undefined {
  const normalised = path.replaceAll('\\', '/');
  if (normalised.startsWith('/') || /^[A-Za-z]:/.test(normalised)) return undefined;
  const parts = normalised.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return undefined;
  return parts.join('/');
}

/**
 * Gunzips `archive` streamed, handing each piece to `take`; stops (and says so) once more than
 * `maxBytes` came out. Rejects on a damaged gzip.
 */
function gunzipStreamed(archive: Uint8Array, maxBytes: number, take: (piece: Buffer, at: number) => void): Promise<{ size: number; over: boolean }> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip();
    let size = 0;
    let settled = false;
    const finish = (over: boolean, error?: Error) => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      if (error) reject(error);
      else resolve({ size, over });
    };
    gunzip.on('data', (piece: Buffer) => {
      if (size + piece.length > maxBytes) return finish(true);
      take(piece, size);
      size += piece.length;
    });
    gunzip.on('end', () => finish(false));
    gunzip.on('error', (error) => finish(false, error));
    gunzip.end(archive);
  });
}

/** The gunzipped bytes, at most `maxBytes` of them (a bomb is refused having held nothing). */
async function gunzipWithin(archive: Uint8Array, fileName: string, maxBytes: number): Promise<Uint8Array> {
  try {
    const measured = await gunzipStreamed(archive, maxBytes, () => undefined);
    if (measured.over) throw unprocessable(`converter reader: "${fileName}" inflates to more than ${maxBytes} bytes, the most an archive may hold (CONVERTER_ARCHIVE_MAX_BYTES)`);
    const out = Buffer.allocUnsafe(measured.size);
    await gunzipStreamed(archive, measured.size, (piece, at) => piece.copy(out, at));
    return out;
  } catch (cause) {
    if (RuntimeError.isInstance(cause)) throw cause;
    throw unprocessable(`converter reader: "${fileName}" is not a valid gzip file (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
}

export async function listTar(archive: Uint8Array, fileName: string, limits: TarLimits): Promise<TarListing> {
  const data = archive[0] === 0x1f && archive[1] === 0x8b ? await gunzipWithin(archive, fileName, limits.maxBytes) : archive;
  if (data.length > limits.maxBytes) throw unprocessable(`converter reader: "${fileName}" holds more than ${limits.maxBytes} bytes, the most an archive may hold (CONVERTER_ARCHIVE_MAX_BYTES)`);
  const members: TarMember[] = [];
  const notes: string[] = [];
  let offset = 0;
  let entries = 0;
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  let global: Record<string, string> = {};
  while (offset + BLOCK <= data.length) {
    const header = data.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header)) {
      if (entries === 0) throw unprocessable(`converter reader: "${fileName}" is not a tar archive (the first header's checksum does not match)`);
      throw unprocessable(`converter reader: "${fileName}" has a damaged tar header at byte ${offset} (bad checksum)`);
    }
    const size = number(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const bodyStart = offset + BLOCK;
    const bodyEnd = bodyStart + size;
    if (!Number.isSafeInteger(size) || size < 0 || bodyEnd > data.length) {
      throw unprocessable(`converter reader: "${fileName}" is truncated (an entry at byte ${offset} claims ${size} bytes beyond the end)`);
    }
    offset = bodyStart + Math.ceil(size / BLOCK) * BLOCK;
    const body = data.subarray(bodyStart, bodyEnd);
    // Metadata entries describe the next one.
    if (type === 'L') {
      longName = field(body, 0, body.length);
      continue;
    }
    if (type === 'x') {
      pax = paxRecords(body);
      continue;
    }
    if (type === 'g') {
      global = { ...global, ...paxRecords(body) };
      continue;
    }
    entries++;
    if (entries > limits.maxMembers) {
      notes.push(`the archive has more than ${limits.maxMembers} entries; the rest were not read`);
      break;
    }
    const prefix = field(header, 345, 155);
    const rawName = pax.path ?? longName ?? global.path ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = undefined;
    pax = {};
    if (type !== '0' && type !== '\u0000' && type !== '7') {
      if (type !== '5') notes.push(`${rawName}: not a regular file (tar type ${JSON.stringify(type)})`);
      continue;
    }
    const path = safeMemberPath(rawName);
    if (!path) {
      notes.push(`${rawName}: unsafe path (absolute or outside the archive)`);
      continue;
    }
    members.push({ path, data: body });
  }
  return { members, notes };
}
