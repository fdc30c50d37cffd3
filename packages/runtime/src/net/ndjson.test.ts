import { describe, expect, it } from 'vitest';
import { NdjsonSyntaxError, parseNdjson } from './ndjson.js';

const encoder = new TextEncoder();

async function* chunksOf(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? encoder.encode(part) : part;
}

/** Every way of cutting `bytes` in two, plus one byte per chunk. */
function cuts(text: string): Uint8Array[][] {
  const bytes = encoder.encode(text);
  const result: Uint8Array[][] = [];
  for (let i = 0; i <= bytes.length; i++) result.push([bytes.slice(0, i), bytes.slice(i)]);
  result.push(Array.from(bytes, (b) => Uint8Array.of(b)));
  return result;
}

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('parseNdjson', () => {
  const wire = '{"a":1}\r\n\n{"b":"é ✓"}\n{"c":[1,2]}';

  it('parses one value per line whatever the chunk boundaries', async () => {
    for (const chunks of cuts(wire)) {
      expect(await all(parseNdjson(chunksOf(...chunks)))).toEqual([{ a: 1 }, { b: 'é ✓' }, { c: [1, 2] }]);
    }
  });

  it('throws NdjsonSyntaxError on a malformed line, after yielding the good ones', async () => {
    const seen: unknown[] = [];
    const run = async () => {
      for await (const value of parseNdjson(chunksOf('{"ok":true}\n{"broken":\n{"never":1}\n'))) seen.push(value);
    };
    await expect(run()).rejects.toBeInstanceOf(NdjsonSyntaxError);
    expect(seen).toEqual([{ ok: true }]);
  });
});
