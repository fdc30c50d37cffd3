import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../credentials.js';
import { base62, isServiceAccountToken, mintToken } from './token.js';

describe('service-account tokens', () => {
  it('encodes bytes as big-endian base62', () => {
    expect(base62(new Uint8Array([0]))).toBe('0');
    expect(base62(new Uint8Array([61]))).toBe('z');
    expect(base62(new Uint8Array([62]))).toBe('10');
    expect(base62(new Uint8Array([1, 0]))).toBe('48');
  });
  it('mints svc_pat_ tokens with a 16-character display prefix and a SHA-256 hash', () => {
    const a = mintToken();
    const b = mintToken();
    expect(a.token).toMatch(/^svc_pat_[0-9A-Za-z]{30,43}$/);
    expect(a.prefix).toBe(a.token.slice(0, 16));
    expect(a.hash).toBe(sha256Hex(a.token));
    expect(a.token).not.toBe(b.token);
    expect(isServiceAccountToken(a.token)).toBe(true);
    expect(isServiceAccountToken('eyJhbGciOi')).toBe(false);
  });
});
