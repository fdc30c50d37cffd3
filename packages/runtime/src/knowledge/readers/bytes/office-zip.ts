/**
 * @module knowledge/readers/bytes/office-zip
 * What the Office Open XML readers (xlsx, pptx, docx) share: recognising the container from its
 * first bytes (a zip, or the OLE2 compound file of the 97-2003 binary formats), opening a zip
 * with a bound on what it may inflate to, and reading one part as text under that bound.
 *
 * Every function is a pure function of the bytes it is given, so a reader can run in a worker.
 */
import type JSZip from 'jszip';
import { unprocessable } from '../../../errors.js';
import type { ReaderInput } from '../../types.js';

/** The most a single upload's zip may inflate to; a zip bomb is refused instead of exhausting memory. */
export const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** A zip starts with a local file header (`PK\x03\x04`), or is an empty archive (`PK\x05\x06`). */
export function isZip(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && ((data[2] === 0x03 && data[3] === 0x04) || (data[2] === 0x05 && data[3] === 0x06));
}

/** The OLE2 compound file used by .doc, .xls and .ppt (Office 97-2003). */
export function isOle(data: Uint8Array): boolean {
  return data.length >= OLE_MAGIC.length && OLE_MAGIC.every((b, i) => data[i] === b);
}

const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');

/**
 * A password-protected .docx/.xlsx/.pptx is not a zip but an OLE2 file holding an
 * `EncryptedPackage` stream; telling it from a 97-2003 file gives the right advice.
 */
export function isEncryptedOoxml(data: Uint8Array): boolean {
  return isOle(data) && Buffer.from(data.buffer, data.byteOffset, data.byteLength).includes(ENCRYPTED_PACKAGE);
}

/** The refusal for a password-protected Office file. */
export function encryptedRefusal(input: ReaderInput, readerId: string): Error {
  return unprocessable(`${readerId} reader: "${input.name}" is password-protected (encrypted), so its content cannot be read; remove the password and upload it again`);
}

/** The bytes of a binary reader's input; text input and empty files are refused by name. */
export function requireBytes(input: ReaderInput, readerId: string): Uint8Array {
  if (typeof input.data === 'string') throw unprocessable(`${readerId} reader: "${input.name}" must be given as file bytes, not text`);
  if (input.data.length === 0) throw unprocessable(`${readerId} reader: "${input.name}" is empty (0 bytes)`);
  return input.data;
}

function reasonOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Opens the zip and checks the sizes its directory declares. JSZip only reads the central
 * directory here; parts are inflated when read.
 */
export async function openZip(data: Uint8Array, input: ReaderInput, readerId: string, format: string): Promise<JSZip> {
  const { default: JSZipClass } = await import('jszip');
  let zip: JSZip;
  try {
    zip = await JSZipClass.loadAsync(data, { checkCRC32: false });
  } catch (cause) {
    throw unprocessable(`${readerId} reader: "${input.name}" could not be read as ${format}: it is not a valid zip archive (${reasonOf(cause)})`, cause);
  }
  let declared = 0;
  for (const file of Object.values(zip.files)) declared += declaredSize(file);
  if (declared > MAX_INFLATED_BYTES) {
    throw unprocessable(`${readerId} reader: "${input.name}" would inflate to ${declared} bytes, more than the ${MAX_INFLATED_BYTES} allowed`);
  }
  return zip;
}

interface StreamHelper {
  on(event: 'data', listener: (piece: Uint8Array) => void): StreamHelper;
  on(event: 'error', listener: (error: Error) => void): StreamHelper;
  on(event: 'end', listener: () => void): StreamHelper;
  pause(): StreamHelper;
  resume(): StreamHelper;
}

function declaredSize(file: JSZip.JSZipObject): number {
  // JSZip keeps the central directory's sizes on a private field; it is absent for folders.
  const size = (file as unknown as { _data?: { uncompressedSize?: unknown } })._data?.uncompressedSize;
  return typeof size === 'number' && size > 0 ? size : 0;
}

/**
 * A part's text, or undefined when the zip has no such part. Inflation is streamed and stops at
 * MAX_INFLATED_BYTES whatever the directory declared, so a lying size cannot exhaust memory.
 */
export async function readPart(zip: JSZip, path: string, input: ReaderInput, readerId: string, limit = MAX_INFLATED_BYTES): Promise<string | undefined> {
  const file = zip.file(path);
  if (!file) return undefined;
  const pieces: Uint8Array[] = [];
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      // internalStream is public JSZip API (documented) but missing from its type definitions.
      const stream = (file as unknown as { internalStream(type: 'uint8array'): StreamHelper }).internalStream('uint8array');
      stream
        .on('data', (piece: Uint8Array) => {
          total += piece.length;
          if (total > limit) {
            stream.pause();
            reject(new Error(`it inflates to more than ${limit} bytes`));
            return;
          }
          pieces.push(piece);
        })
        .on('error', reject)
        .on('end', () => resolve())
        .resume();
    });
  } catch (cause) {
    throw unprocessable(`${readerId} reader: "${input.name}" has a damaged part ${path} (${reasonOf(cause)})`, cause);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(pieces));
}

/**
 * Resolves a relationship target against the folder of the part that names it, as OPC does:
 * `../notesSlides/notesSlide1.xml` from `ppt/slides/` is `ppt/notesSlides/notesSlide1.xml`.
 */
export function resolvePart(fromFolder: string, target: string): string {
  const segments = target.startsWith('/') ? [] : fromFolder.split('/').filter(Boolean);
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}
