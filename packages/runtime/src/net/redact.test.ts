import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

describe('redact', () => {
  it('cuts every occurrence of each secret', () => {
    expect(redact('key sk-123456 and again sk-123456', ['sk-123456'])).toBe('key [redacted] and again [redacted]');
    expect(redact('a=one-secret b=two-secret', ['one-secret', 'two-secret'])).toBe('a=[redacted] b=[redacted]');
  });

  it('cuts the URL-encoded form too', () => {
    expect(redact('sig=a%2Fb%3D and a/b=', ['a/b='])).toBe('sig=[redacted] and [redacted]');
  });

  it('leaves short and missing secrets alone, and text without secrets unchanged', () => {
    expect(redact('abc def', ['abc', '', undefined])).toBe('abc def');
    expect(redact('nothing here', ['sk-secret'])).toBe('nothing here');
    expect(redact('nothing here')).toBe('nothing here');
  });
});
