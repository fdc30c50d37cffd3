import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../util/logger.js';
import { TraceRetention } from './retention.js';

const DAY = 86_400_000;

describe('trace retention', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sweeps at start and every interval, removing what started before the retention window', async () => {
    const cutoffs: number[] = [];
    let now = 100 * DAY;
    const retention = new TraceRetention({ store: { deleteBefore: async (c) => (cutoffs.push(c), 0) }, log: silentLogger, retentionDays: 30, intervalMs: 1000, now: () => now });
    retention.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(cutoffs).toEqual([70 * DAY]);
    now += DAY;
    await vi.advanceTimersByTimeAsync(1000);
    expect(cutoffs).toEqual([70 * DAY, 71 * DAY]);
    await retention.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(cutoffs).toHaveLength(2);
  });

  it('never sweeps when traces are kept forever (0 days)', async () => {
    const deleteBefore = vi.fn<(cutoffMs: number) => Promise<number>>(async () => 0);
    const retention = new TraceRetention({ store: { deleteBefore }, log: silentLogger, retentionDays: 0, intervalMs: 1000 });
    retention.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(deleteBefore).not.toHaveBeenCalled();
  });
});
