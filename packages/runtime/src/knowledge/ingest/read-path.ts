/**
 * @module knowledge/ingest/read-path
 * Reading a file the SDK's `insert({ path })` names, within the knowledge base's size limit.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { badRequest, RuntimeError } from '../../errors.js';

export function tooLarge(name: string, limit: number): RuntimeError {
  return new RuntimeError('PAYLOAD_TOO_LARGE', `"${name}" is larger than the knowledge limit of ${limit} bytes`);
}

export async function readPath(path: string, limit: number): Promise<Uint8Array> {
  try {
    // Checked before reading, so an oversized file is never loaded into memory.
    if ((await stat(path)).size > limit) throw tooLarge(basename(path), limit);
    return await readFile(path);
  } catch (cause) {
    if (RuntimeError.isInstance(cause)) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RuntimeError('NOT_FOUND', `File not found: ${path}`, { cause });
    if (code === 'EISDIR') throw badRequest(`${path} is a directory; insert its files one by one`, cause);
    throw badRequest(`Cannot read ${path} (${code ?? 'error'})`, cause);
  }
}
