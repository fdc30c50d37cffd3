import { describe, expect, it } from 'vitest';
import { FailureLimiter } from './failure-limiter.js';

describe('FailureLimiter', () => {
  it('allows maxFailures within the window, then asks the client to wait', () => {
    const limiter = new FailureLimiter({ maxFailures: 3, windowMs: 60_000 });
    expect([limiter.fail('a', 0), limiter.fail('a', 1000), limiter.fail('a', 2000)]).toEqual([undefined, undefined, undefined]);
    expect(limiter.fail('a', 3000)).toBe(57);
    expect(limiter.fail('b', 3000)).toBeUndefined();
    // The window slides: the first failure has aged out.
    expect(limiter.fail('a', 60_001)).toBeUndefined();
  });
  it('forgets the oldest clients beyond its capacity', () => {
    const limiter = new FailureLimiter({ maxFailures: 1, windowMs: 60_000, maxClients: 2 });
    limiter.fail('a', 0);
    limiter.fail('b', 0);
    limiter.fail('c', 0);
    expect(limiter.fail('a', 1)).toBeUndefined();
    expect(limiter.fail('c', 1)).toBe(60);
  });
});
