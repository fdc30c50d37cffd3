import { describe, expect, it } from 'vitest';
import { boundAttributes, serializeAttributes, truncateUtf8 } from './payload.js';

describe('span payloads', () => {
  it('keeps small fields as they are', () => {
    const attributes = { model: 'm', input_tokens: 12, messages: [{ role: 'user', content: 'hi' }], none: null };
    expect(boundAttributes(attributes)).toEqual(attributes);
  });

  it('cuts a long text to the bound and notes its original size', () => {
    const big = 'x'.repeat(20_000);
    const out = boundAttributes({ result: big, name: 'ok' }, 16 * 1024);
    expect(out.result).toBe('x'.repeat(16 * 1024));
    expect(out.truncated).toEqual({ result: 20_000 });
    expect(out.name).toBe('ok');
  });

  it('keeps an oversized object as its cut JSON text', () => {
    const messages = Array.from({ length: 100 }, () => ({ role: 'user', content: 'y'.repeat(100) }));
    const out = boundAttributes({ messages }, 1000);
    expect(typeof out.messages).toBe('string');
    expect((out.messages as string).length).toBe(1000);
    expect(out.truncated).toEqual({ messages: JSON.stringify(messages).length });
  });

  it('cuts on a character boundary, counting UTF-8 bytes', () => {
    const cut = truncateUtf8('é'.repeat(10), 5);
    expect(cut).toEqual({ text: 'éé', bytes: 20 });
    expect(truncateUtf8('abc', 5)).toEqual({ text: 'abc' });
  });

  it('redacts credentials before bounding', () => {
    const out = boundAttributes({ arguments: { city: 'Paris', api_key: 'sk-123456' }, error: 'upstream said: Bearer sk-123456 is invalid' });
    expect(out).toEqual({ arguments: { city: 'Paris', api_key: '[redacted]' }, error: 'upstream said: Bearer [redacted] is invalid' });
  });

  it('serialises to the JSON of the bounded attributes, every case above alike', () => {
    const cases: Record<string, unknown>[] = [
      { model: 'm', input_tokens: 12, messages: [{ role: 'user', content: 'hi' }], none: null, gone: undefined, nan: Number.NaN },
      { result: 'x'.repeat(20_000), name: 'ok' },
      { messages: Array.from({ length: 100 }, () => ({ role: 'user', content: 'y'.repeat(100) })) },
      { arguments: { city: 'Paris', api_key: 'sk-123456' }, error: 'upstream said: Bearer sk-123456 is invalid' },
      { 'odd "key"': 'é'.repeat(10_000), truncated: 'a field of that name' },
    ];
    for (const attributes of cases) {
      expect(JSON.parse(serializeAttributes(attributes, 1000))).toEqual(JSON.parse(JSON.stringify(boundAttributes(attributes, 1000))));
    }
  });
});
