import { describe, expect, it } from 'vitest';
import { parseSse, type SseEvent } from './sse.js';

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

describe('parseSse', () => {
  const wire =
    ': a comment\r\n' +
    'event: message_start\r\n' +
    'data: {"a":1}\r\n' +
    '\r\n' +
    'data: first\n' +
    'data:second\n' +
    'id: 7\n' +
    '\n' +
    'data: héllo ✓\r' +
    '\r' +
    'data: [DONE]\n\n';
  const expected: SseEvent[] = [
    { event: 'message_start', data: '{"a":1}' },
    { data: 'first\nsecond', id: '7' },
    { data: 'héllo ✓', id: '7' },
    { data: '[DONE]', id: '7' },
  ];

  it('parses events whatever the chunk boundaries (inside lines, inside \\r\\n, inside UTF-8)', async () => {
    for (const chunks of cuts(wire)) {
      expect(await all(parseSse(chunksOf(...chunks)))).toEqual(expected);
    }
  });

  it('reads a fetch-style ReadableStream', async () => {
    const stream = new Response('data: x\n\ndata: y\n\n').body;
    if (!stream) throw new Error('no body');
    expect(await all(parseSse(stream))).toEqual([{ data: 'x' }, { data: 'y' }]);
  });

  it('ignores comments-only and empty events, and keeps an event missing its final blank line', async () => {
    expect(await all(parseSse(chunksOf(':keepalive\n\n\n\nevent: ping\n\ndata: tail')))).toEqual([{ data: 'tail' }]);
  });

  it('treats a field with no colon as an empty value and strips only one leading space', async () => {
    expect(await all(parseSse(chunksOf('data\ndata:  two\n\n')))).toEqual([{ data: '\n two' }]);
  });
});
