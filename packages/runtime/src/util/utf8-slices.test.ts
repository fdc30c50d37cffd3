import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutBeforeLowSurrogate, decodeUtf8Sliced, sha256Sliced, utf8Slices } from './utf8-slices.js';

const oneShot = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Counts event-loop turns (setImmediate callbacks) while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  running = false;
  return { result, turns };
}

describe('utf8Slices', () => {
  it('never cuts a surrogate pair, and the pieces join to the text', () => {
    const text = 'ab😀cd😀😀e\ud800😀\udc00\ud800';
    for (let size = 2; size <= text.length; size++) {
      const pieces = [...utf8Slices(text, size)];
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces) {
        expect(piece.length).toBeLessThanOrEqual(size);
      }
      // Encoded piece by piece, the bytes are those of the whole text: no pair was cut.
      expect(Buffer.concat(pieces.map((p) => Buffer.from(p, 'utf8')))).toEqual(Buffer.from(text, 'utf8'));
    }
  });
});

describe('sha256Sliced', () => {
  it('gives the one-shot digest of any string, however it is sliced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.oneof(fc.constantFrom('a', 'é', '😀', '\ud800', '\udc00', '\n'), fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c))), maxLength: 200 }), fc.integer({ min: 2, max: 17 }), async (text, size) => {
        expect(await sha256Sliced(text, size)).toBe(oneShot(text));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the one-shot digest of any bytes, however they are sliced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 1, max: 40 }), async (bytes, size) => {
        expect(await sha256Sliced(bytes, size)).toBe(oneShot(bytes));
      }),
      { numRuns: 200 },
    );
    expect(await sha256Sliced(new Uint8Array(0))).toBe(oneShot(new Uint8Array(0)));
    expect(await sha256Sliced('')).toBe(oneShot(''));
  });

  it('lets the event loop run between slices of a large input', async () => {
    const text = 'x'.repeat(3_000_000) + '😀';
    const { result, turns } = await turnsDuring(() => sha256Sliced(text));
    expect(result).toBe(oneShot(text));
    expect(turns).toBeGreaterThanOrEqual(2);
    const bytes = Buffer.from(text);
    const hashed = await turnsDuring(() => sha256Sliced(bytes));
    expect(hashed.result).toBe(oneShot(bytes));
    expect(hashed.turns).toBeGreaterThanOrEqual(2);
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    const hashing = sha256Sliced('y'.repeat(3_000_000), undefined, controller.signal);
    controller.abort(new Error('stop'));
    await expect(hashing).rejects.toThrow('stop');
  });
});

describe('decodeUtf8Sliced', () => {
  it('decodes any bytes as Buffer#toString does, sequences cut by a slice included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0xef, 0xbb, 0xbf, 0xf0, 0x9f, 0x98, 0x80, 0xc3, 0xa9)), { maxLength: 80 }),
        fc.integer({ min: 1, max: 9 }),
        async (values, size) => {
          const bytes = Uint8Array.from(values);
          expect(await decodeUtf8Sliced(bytes, size)).toBe(Buffer.from(bytes).toString('utf8'));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps a leading byte-order mark, and yields between slices of a large input', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('é'.repeat(1_500_000))]);
    const { result, turns } = await turnsDuring(() => decodeUtf8Sliced(bytes));
    expect(result).toBe(bytes.toString('utf8'));
    expect(result.charCodeAt(0)).toBe(0xfeff);
    expect(turns).toBeGreaterThanOrEqual(2);
  });
});

describe('cutBeforeLowSurrogate', () => {
  it('steps a cut back off the low half of a pair, and leaves any other cut', () => {
    const text = 'ab\u{1F600}cd';
    expect(cutBeforeLowSurrogate(text, 3)).toBe(2);
    expect(cutBeforeLowSurrogate(text, 2)).toBe(2);
    expect(cutBeforeLowSurrogate(text, 4)).toBe(4);
    expect(cutBeforeLowSurrogate(text, text.length)).toBe(text.length);
  });
});
