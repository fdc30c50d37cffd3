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
import busboy from 'busboy';

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
            form.append(name, new File(parts, info.filename ?? 'blob', { type: info.mimeType }));
            done();
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
