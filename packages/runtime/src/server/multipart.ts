/**
 * @module server/multipart
 * Reads a multipart/form-data body as it arrives, with busboy, into the FormData the rest of
 * the edge expects. The platform's `Request.formData()` parses the whole buffered body in one
 * synchronous pass: 130-260 ms of a blocked event loop for a 25 MB upload, during which no
 * other request (not even `/health`) is answered. Here each network chunk is parsed as it comes,
 * and a file's bytes are only gathered, so the loop is never held for longer than one chunk.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import busboy from 'busboy';

/**
 * A File whose bytes stay where they were gathered. A platform File copies its parts into native
 * memory and `arrayBuffer()` copies them out again with a concat: ~50 ms of the event loop for
 * a 14 MB upload, beside the one join here. Every way of reading it answers from the same
 * bytes; `stream()` and `slice()`, which nothing here calls, go through an ordinary Blob.
 */
class GatheredFile extends File {
  readonly #bytes: Buffer;

  constructor(bytes: Buffer, name: string, type: string) {
    super([], name, { type });
    this.#bytes = bytes;
    // An own property shadows Blob's getter (the DOM typings declare `size` a property).
    Object.defineProperty(this, 'size', { value: bytes.byteLength, enumerable: true });
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.#bytes;
    // A joined file has an ArrayBuffer of its own; a one-part file may sit in a shared pool.
    const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
    return Promise.resolve((whole ? b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as ArrayBuffer);
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.arrayBuffer().then((buffer) => new Uint8Array(buffer));
  }

  override text(): Promise<string> {
    return Promise.resolve(this.#bytes.toString('utf8'));
  }

  override stream(): ReturnType<Blob['stream']> {
    return new Blob([this.#bytes]).stream();
  }

  override slice(start?: number, end?: number, contentType?: string): Blob {
    return new Blob([this.#bytes]).slice(start, end, contentType);
  }
}

/** Bytes copied between two turns of the event loop when a file's parts are joined. */
const JOIN_SLICE_BYTES = 1024 * 1024;

/**
 * The parts as one Buffer, copied a slice at a time: one Buffer.concat of a 14 MB file held the
 * loop ~25 ms (the copy touches every page of a new allocation).
 */
async function joinParts(parts: readonly Buffer[]): Promise<Buffer> {
  if (parts.length === 1) return parts[0]!;
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const joined = Buffer.allocUnsafeSlow(total);
  let at = 0;
  let sinceYield = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.byteLength;
    sinceYield += part.byteLength;
    if (sinceYield >= JOIN_SLICE_BYTES) {
      sinceYield = 0;
      await yieldToLoop();
    }
  }
  return joined;
}

/** The form in `body`, parsed incrementally. Rejects on a malformed body. */
export function readMultipart(body: ReadableStream<Uint8Array> | null, contentType: string): Promise<FormData> {
  return new Promise<FormData>((resolve, reject) => {
    const form = new FormData();
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8' });
    } catch (cause) {
      // A content type without a boundary.
      reject(cause instanceof Error ? cause : new Error(String(cause)));
      return;
    }
    const files: Promise<void>[] = [];
    parser.on('field', (name, value) => form.append(name, value));
    parser.on('file', (name, stream, info) => {
      const parts: Buffer[] = [];
      files.push(
        new Promise<void>((done, fail) => {
          stream.on('data', (part: Buffer) => parts.push(part));
          stream.on('error', fail);
          stream.on('end', () => {
            joinParts(parts).then((bytes) => {
              form.append(name, new GatheredFile(bytes, info.filename ?? 'blob', info.mimeType));
              done();
            }, fail);
          });
        }),
      );
    });
    parser.on('error', reject);
    parser.on('close', () => {
      Promise.all(files).then(() => resolve(form), reject);
    });
    if (!body) {
      parser.end();
      return;
    }
    const source = Readable.fromWeb(body as WebReadableStream<Uint8Array>);
    source.on('error', reject);
    source.pipe(parser);
  });
}
