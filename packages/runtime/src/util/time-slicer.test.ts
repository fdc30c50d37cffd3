import { describe, expect, it } from 'vitest';
import { TimeSlicer, mapSliced } from './time-slicer.js';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('TimeSlicer', () => {
  it('is due once its budget is used, and a yield lets the loop run and starts a new slice', async () => {
    const slicer = new TimeSlicer(5);
    expect(slicer.due()).toBe(false);
    expect(slicer.pause()).toBeUndefined();
    busy(6);
    expect(slicer.due()).toBe(true);
    let ran = false;
    setImmediate(() => (ran = true));
    await slicer.pause();
    expect(ran).toBe(true);
    expect(slicer.due()).toBe(false);
  });

  it('throws the abort reason after a yield', async () => {
    const controller = new AbortController();
    const slicer = new TimeSlicer(1, controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(slicer.yield()).rejects.toThrow('cancelled');
  });
});

describe('mapSliced', () => {
  it('maps like Array#map, and no turn of the loop waits much longer than the budget', async () => {
    const items = Array.from({ length: 2000 }, (_, i) => i);
    const gaps: number[] = [];
    let last = performance.now();
    let running = true;
    const tick = () => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const out = await mapSliced(
      items,
      (n, i) => {
        busy(0.05);
        return n * 2 + i;
      },
      new TimeSlicer(4),
    );
    running = false;
    expect(out).toEqual(items.map((n, i) => n * 2 + i));
    // 100 ms of work in slices of ~4 ms (plus one check interval of 64 items, ~3 ms).
    expect(gaps.length).toBeGreaterThan(10);
    expect(Math.max(...gaps)).toBeLessThan(40);
  });
});
