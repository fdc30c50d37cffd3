import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('lets one second of the rate go at once, then paces the rest', () => {
    const bucket = new TokenBucket(600);
    const now = Date.now();
    for (let i = 0; i < 10; i++) {
      expect(bucket.waitMs(1, now)).toBe(0);
      bucket.take(1);
    }
    expect(bucket.waitMs(1, now)).toBe(100);
    expect(bucket.waitMs(1, now + 100)).toBe(0);
  });

  it('waits for a full bucket for a request larger than it, then is in debt', () => {
    const bucket = new TokenBucket(60);
    const now = Date.now();
    expect(bucket.waitMs(5, now)).toBe(0);
    bucket.take(5);
    expect(bucket.waitMs(1, now)).toBe(5000);
  });

  it('takes credit for an over-estimate, never above one second of the rate', () => {
    const bucket = new TokenBucket(6000);
    const now = Date.now();
    bucket.take(100);
    expect(bucket.waitMs(100, now)).toBeGreaterThan(0);
    bucket.credit(1000);
    expect(bucket.waitMs(100, now)).toBe(0);
    bucket.take(100);
    expect(bucket.waitMs(1, now)).toBeGreaterThan(0);
  });

  it('changes rate, keeping no more than the new second holds', () => {
    const bucket = new TokenBucket(6000);
    bucket.setRate(60);
    expect(bucket.rate).toBe(60);
    bucket.take(1);
    expect(bucket.waitMs(1)).toBeGreaterThan(900);
  });
});
