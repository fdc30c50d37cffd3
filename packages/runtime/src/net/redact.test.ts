import { describe, expect, it } from 'vitest';
import { redact, redactCredentials } from './redact.js';

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

describe('redactCredentials', () => {
  it('cuts credential-named fields at any depth, and leaves the rest', () => {
    const value = { city: 'Paris', headers: { Authorization: 'Bearer abc.def', accept: 'json' }, nested: [{ api_key: 'k-123', password: null }] };
    expect(redactCredentials(value)).toEqual({ city: 'Paris', headers: { Authorization: '[redacted]', accept: 'json' }, nested: [{ api_key: '[redacted]', password: null }] });
  });

  it('cuts bearer and basic credentials and service-account tokens inside text', () => {
    expect(redactCredentials('sent Authorization: Bearer sk-live-123456 to x')).toBe('sent Authorization: Bearer [redacted] to x');
    expect(redactCredentials('Basic dXNlcjpwYXNz and svc_pat_abcdefghijkl')).toBe('Basic [redacted] and [redacted]');
    expect(redactCredentials('a bearer of news')).toBe('a bearer of news');
    expect(redactCredentials(42)).toBe(42);
  });

  it('cuts credential fields of JSON written as text, and leaves other JSON text as written', () => {
    expect(redactCredentials({ arguments: '{"city":"Paris","api_key":"sk-123456"}' })).toEqual({ arguments: '{"city":"Paris","api_key":"[redacted]"}' });
    expect(redactCredentials('{ "city": "Paris" }')).toBe('{ "city": "Paris" }');
    expect(redactCredentials('{not json, Bearer abcdef}')).toBe('{not json, Bearer [redacted]}');
  });
});
