import { describe, expect, it } from 'vitest';
import { byteChunks, textChunks } from './byte-chunks.js';

const encoder = new TextEncoder();

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function* chunksOf(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* parts;
}

describe('byteChunks', () => {
  it('reads an async iterable and a ReadableStream alike', async () => {
    const parts = [encoder.encode('ab'), encoder.encode('cd')];
    expect(await all(byteChunks(chunksOf(...parts)))).toEqual(parts);
    expect(await all(byteChunks(new Response('abcd').body!))).toEqual([encoder.encode('abcd')]);
  });

  it('cancels a stream that is abandoned half-read', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(encoder.encode('x')),
      cancel: () => {
        cancelled = true;
      },
    });
    for await (const chunk of byteChunks(stream)) {
      expect(chunk).toEqual(encoder.encode('x'));
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe('textChunks', () => {
  it('decodes a character split across chunks', async () => {
    const bytes = encoder.encode('née ✓');
    const cut = bytes.indexOf(0xc3) + 1;
    expect((await all(textChunks(chunksOf(bytes.slice(0, cut), bytes.slice(cut))))).join('')).toBe('née ✓');
  });

  it('yields nothing for empty chunks', async () => {
    expect(await all(textChunks(chunksOf(new Uint8Array(0), new Uint8Array(0))))).toEqual([]);
  });
});
