/**
 * @module knowledge/readers/bytes/office-zip
 * What the Office Open XML readers (xlsx, pptx, docx) share: recognising the container from its
 * first bytes (a zip, or the OLE2 compound file of the 97-2003 binary formats), opening a zip
 * (zip-archive.ts) under the content limits, and reading one part as text within them.
 *
 * Every function is a pure function of the bytes it is given, so a reader can run in a worker.
 */
import { unprocessable } from '../../../errors.js';
import { CONTENT_LIMIT_VARIABLES, DEFAULT_CONTENT_LIMITS, sizeText, type ContentLimits } from '../../../settings/content-limits.js';
import type { ReaderInput } from '../../types.js';
import { ZipArchive } from './zip-archive.js';

export { ZipArchive } from './zip-archive.js';

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
 * Opens the zip (its central directory only; parts are inflated when read, under `limits`) and
 * refuses it at once when the sizes its directory declares already pass the file's budget.
 */
export function openZip(data: Uint8Array, input: ReaderInput, readerId: string, format: string, limits: ContentLimits = DEFAULT_CONTENT_LIMITS): ZipArchive {
  let zip: ZipArchive;
  try {
    zip = ZipArchive.open(data, limits, { fileName: input.name, readerId });
  } catch (cause) {
    throw unprocessable(`${readerId} reader: "${input.name}" could not be read as ${format}: it is not a valid zip archive (${reasonOf(cause)})`, cause);
  }
  const declared = zip.declaredBytes;
  if (declared > limits.maxInflatedBytes) {
    throw unprocessable(`${readerId} reader: "${input.name}" would inflate to ${declared} bytes, more than the ${sizeText(limits.maxInflatedBytes)} allowed (${CONTENT_LIMIT_VARIABLES.maxInflatedBytes})`);
  }
  return zip;
}

/**
 * A part's text, or undefined when the zip has no such part. Inflation stops at the content
 * limits whatever the directory declared (`xml`: the part is parsed whole, so the XML part
 * limit applies too), or at `limit` bytes for a part that is never large.
 */
export async function readPart(zip: ZipArchive, path: string, input: ReaderInput, readerId: string, bound?: number | 'xml'): Promise<string | undefined> {
  const bytes = await zip.read(path, typeof bound === 'number' ? { limit: bound } : { xml: bound === 'xml' }, { fileName: input.name, readerId });
  return bytes === undefined ? undefined : new TextDecoder('utf-8').decode(bytes);
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
