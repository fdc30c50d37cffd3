/**
 * @module net/ndjson
 * Newline-delimited JSON (Ollama's streaming format): one JSON value per line, lines possibly
 * split across chunks, blank lines and `\r\n` tolerated.
 */
import { textChunks, type ByteSource } from './byte-chunks.js';

/** Thrown for a line that is not JSON; the model providers turn it into MODEL_BAD_RESPONSE. */
export class NdjsonSyntaxError extends Error {
  constructor(readonly line: string, cause: unknown) {
    super(`Malformed NDJSON line: ${line.length > 200 ? `${line.slice(0, 200)}...` : line}`, { cause });
    this.name = 'NdjsonSyntaxError';
  }
}

function parseLine(raw: string): { value: unknown } | undefined {
  const line = raw.trim();
  if (line === '') return undefined;
  try {
    return { value: JSON.parse(line) as unknown };
  } catch (error) {
    throw new NdjsonSyntaxError(line, error);
  }
}

export async function* parseNdjson(source: ByteSource): AsyncGenerator<unknown> {
  let buffer = '';
  for await (const text of textChunks(source)) {
    buffer += text;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const parsed = parseLine(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      if (parsed) yield parsed.value;
      newline = buffer.indexOf('\n');
    }
  }
  const parsed = parseLine(buffer);
  if (parsed) yield parsed.value;
}
