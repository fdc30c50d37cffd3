import { describe, expect, it } from 'vitest';
import { RateLimiter, type RateLimits } from './rate-limiter.js';

const aborted = (reason: unknown) => new Error(`aborted: ${String(reason)}`);
const limiter = (limits: Partial<RateLimits> = {}) => new RateLimiter({ maxConcurrency: 1, requestsPerMinute: undefined, tokensPerMinute: undefined, ...limits }, aborted);
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('RateLimiter', () => {
  it('keeps at most maxConcurrency requests in flight, handing a slot on when one is released', async () => {
    const limits = limiter({ maxConcurrency: 2 });
    const first = await limits.acquire(1, undefined);
    await limits.acquire(1, undefined);
    let third = false;
    const waiting = limits.acquire(1, undefined).then((release) => {
      third = true;
      return release;
    });
    await tick();
    expect(third).toBe(false);
    first();
    first(); // a second release of the same slot changes nothing
    (await waiting)();
    expect(third).toBe(true);
  });

  it('paces requests per minute after a burst of one second', async () => {
    const limits = limiter({ maxConcurrency: 10, requestsPerMinute: 1200 });
    const started = Date.now();
    for (let i = 0; i < 22; i++) (await limits.acquire(1, undefined))();
    // 20 at once, then one every 50 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(limits.requestsPerMinute).toBe(1200);
  });

  it('serves interactive requests before queued bulk ones', async () => {
    const limits = limiter();
    const held = await limits.acquire(1, undefined);
    const order: string[] = [];
    const take = (name: string, interactive: boolean) => limits.acquire(1, undefined, interactive).then((release) => {
      order.push(name);
      release();
    });
    const all = [take('bulk 1', false), take('bulk 2', false), take('query', true)];
    held();
    await Promise.all(all);
    expect(order).toEqual(['query', 'bulk 1', 'bulk 2']);
  });

  it('takes an aborted request out of the queue with the caller’s error', async () => {
    const limits = limiter();
    const held = await limits.acquire(1, undefined);
    const controller = new AbortController();
    const queued = limits.acquire(1, controller.signal);
    controller.abort('stop');
    await expect(queued).rejects.toThrow('aborted: stop');
    await expect(limits.acquire(1, AbortSignal.abort('early'))).rejects.toThrow('aborted: early');
    held();
    (await limits.acquire(1, undefined))();
  });

  it('pauses everyone', async () => {
    const limits = limiter({ maxConcurrency: 4 });
    limits.pause(60);
    const started = Date.now();
    (await limits.acquire(1, undefined))();
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('applies the stricter of configured, announced and another user’s limits', () => {
    const limits = limiter({ maxConcurrency: 4, requestsPerMinute: 1000 });
    limits.announce({ requestsPerMinute: 500, tokensPerMinute: 10_000 });
    expect([limits.requestsPerMinute, limits.tokensPerMinute]).toEqual([500, 10_000]);
    limits.announce({ tokensPerMinute: 20_000 });
    expect([limits.requestsPerMinute, limits.tokensPerMinute]).toEqual([500, 20_000]);
    limits.tighten({ maxConcurrency: 2, requestsPerMinute: undefined, tokensPerMinute: 5000 });
    expect([limits.concurrency, limits.requestsPerMinute, limits.tokensPerMinute]).toEqual([2, 500, 5000]);
  });

  it('lets a waiting request go early when a reported cost gives tokens back', async () => {
    const limits = limiter({ maxConcurrency: 2, tokensPerMinute: 6000 });
    // The bucket holds 100 tokens: the first request estimated at 100 empties it.
    const first = await limits.acquire(100, undefined);
    const started = Date.now();
    const second = limits.acquire(100, undefined);
    limits.settle(100, 1);
    (await second)();
    first();
    expect(Date.now() - started).toBeLessThan(500);
  });
});
