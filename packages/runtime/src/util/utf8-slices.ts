/**
 * @module util/utf8-slices
 * Hashing, encoding and decoding megabytes of text in one call holds the event loop for tens of
 * milliseconds (measured on 10 MB: SHA-256 of the string ~12 ms, `Buffer.from` ~7 ms, decoding
 * ~8-20 ms). These do the same work a slice at a time and yield to the loop between slices; the
 * results are byte for byte those of the one-shot calls.
 *
 * A string is cut only between code points: a cut between the two halves of a surrogate pair
 * would encode each half as U+FFFD and change the bytes.
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Characters (or bytes) per slice: about 1 ms of hashing. */
export const SLICE_CHARS = 1 << 20;

/** Consecutive pieces of `text`, each at most `maxChars` long, never cut inside a surrogate pair. */
export function* utf8Slices(text: string, maxChars = SLICE_CHARS): Generator<string> {
  if (!Number.isInteger(maxChars) || maxChars < 2) throw new RangeError('maxChars must be a whole number of at least 2');
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + maxChars);
    // A pair stays whole: the cut moves before its high half (a lone half may end a piece).
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end--;
    yield text.slice(start, end);
    start = end;
  }
}

/**
 * `at`, or one less when `text[at]` is the low half of a surrogate pair: a cut there keeps the
 * pair whole (a cut between the halves leaves two unencodable halves).
 */
export function cutBeforeLowSurrogate(text: string, at: number): number {
  return isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The SHA-256 (hex) of `data` (a string is hashed as its UTF-8 bytes, as `createHash().update`
 * does), a slice at a time, yielding to the event loop between slices. Small inputs are hashed
 * at once.
 */
export async function sha256Sliced(data: string | Uint8Array, sliceSize = SLICE_CHARS, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  if (typeof data === 'string') {
    let first = true;
    for (const piece of utf8Slices(data, sliceSize)) {
      if (!first) await pause(signal);
      first = false;
      hash.update(piece, 'utf8');
    }
  } else {
    for (let at = 0; at < data.byteLength; at += sliceSize) {
      if (at > 0) await pause(signal);
      hash.update(data.subarray(at, at + sliceSize));
    }
  }
  return hash.digest('hex');
}

/**
 * `Buffer.from(bytes).toString('utf8')`, decoded a slice at a time by a streaming decoder, so a
 * sequence cut by a slice boundary decodes whole and invalid bytes become U+FFFD as they would
 * in one piece.
 */
export async function decodeUtf8Sliced(bytes: Uint8Array, sliceSize = SLICE_CHARS, signal?: AbortSignal): Promise<string> {
  if (bytes.byteLength <= sliceSize) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // A BOM is text here, as it is to Buffer#toString.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const parts: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += sliceSize) {
    if (at > 0) await pause(signal);
    parts.push(decoder.decode(bytes.subarray(at, at + sliceSize), { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

async function pause(signal: AbortSignal | undefined): Promise<void> {
  await yieldToLoop();
  signal?.throwIfAborted();
}
