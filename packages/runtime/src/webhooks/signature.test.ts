import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from './signature.js';

const SECRET = 'a-webhook-secret-of-some-length';

describe('webhook signatures', () => {
  it('signs `<t>.<body>` with HMAC-SHA256 and verifies it', () => {
    const header = signWebhook(SECRET, '{"a":1}', 1_800_000_000);
    const hex = createHmac('sha256', SECRET).update('1800000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1800000000,v1=${hex}`);
    expect(verifyWebhook(SECRET, '{"a":1}', header, { now: 1_800_000_010 })).toBe(true);
  });

  it('refuses another body, another secret, an old timestamp and malformed headers', () => {
    const header = signWebhook(SECRET, 'body', 1_800_000_000);
    expect(verifyWebhook(SECRET, 'body!', header, { now: 1_800_000_000 })).toBe(false);
    expect(verifyWebhook('another-secret-entirely', 'body', header, { now: 1_800_000_000 })).toBe(false);
    expect(verifyWebhook(SECRET, 'body', header, { now: 1_800_000_301 })).toBe(false);
    expect(verifyWebhook(SECRET, 'body', header, { now: 1_800_000_301, toleranceSeconds: 400 })).toBe(true);
    for (const bad of [undefined, '', 'v1=abc', 't=x,v1=abc', `t=1800000000,v1=${'0'.repeat(64)}`, 't=1800000000']) {
      expect(verifyWebhook(SECRET, 'body', bad, { now: 1_800_000_000 })).toBe(false);
    }
  });
});
