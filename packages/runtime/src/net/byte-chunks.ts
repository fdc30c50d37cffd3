/**
 * @module net/byte-chunks
 * Response bodies as chunks, for the stream parsers (sse, ndjson): from either a fetch body (a
 * ReadableStream) or any async iterable, so tests can feed them hand-cut chunks without a
 * server; and as text, decoded across chunk boundaries.
 */
export type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

export async function* byteChunks(source: ByteSource): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in source) {
    yield* source as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = (source as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Stopping early must release the underlying connection, not leave it half-read.
    await reader.cancel().catch(() => undefined);
  }
}

/** Decodes UTF-8 across chunk boundaries (a multi-byte character may be split in two). */
export async function* textChunks(source: ByteSource): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const chunk of byteChunks(source)) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}
