import { describe, expect, it } from 'vitest';
import { requestFingerprint } from './fingerprint.js';

describe('the fingerprint of a request under an Idempotency-Key', () => {
  it('is the same for the same fields in another order, nested too', () => {
    const one = requestFingerprint('post', '/agents/a/runs', { message: 'hi', stream: false, meta: { a: 1, b: [1, 2] } });
    const two = requestFingerprint('POST', '/agents/a/runs', { meta: { b: [1, 2], a: 1 }, stream: false, message: 'hi' });
    expect(one).toBe(two);
    expect(one).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when the body, the path or the method does', () => {
    const base = requestFingerprint('POST', '/agents/a/runs', { message: 'hi' });
    expect(requestFingerprint('POST', '/agents/a/runs', { message: 'hi!' })).not.toBe(base);
    expect(requestFingerprint('POST', '/agents/b/runs', { message: 'hi' })).not.toBe(base);
    expect(requestFingerprint('PUT', '/agents/a/runs', { message: 'hi' })).not.toBe(base);
    expect(requestFingerprint('POST', '/agents/a/runs', { message: 'hi', b: [2, 1] })).not.toBe(requestFingerprint('POST', '/agents/a/runs', { message: 'hi', b: [1, 2] }));
  });
});
