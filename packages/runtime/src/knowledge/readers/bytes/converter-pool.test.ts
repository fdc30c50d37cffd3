/**
 * Conversion runs off the event loop: while a large file converts in the worker pool, timers
 * on the main thread keep firing on time (p99 event-loop delay under 50 ms); the same
 * conversion inline stalls the loop for the whole conversion.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../../workers/pool.js';
import { ConverterReader } from './converter.js';
import { DEFAULT_LIMITS, NO_TRANSCRIPTION } from '../../../settings/converter.js';

const settings = { transcription: NO_TRANSCRIPTION, limits: DEFAULT_LIMITS };
const pool = new WorkerPool({ size: 1 });
afterAll(() => pool.close());

/** ~6 MB of XML: 100,000 catalogue entries, about 1-2 s of parsing and rendering. */
const bigXml = new TextEncoder().encode(`<catalog>${'<item id="1"><name>copper kettle</name><price>12</price></item>'.repeat(100_000)}</catalog>`);

async function measure(work: () => Promise<unknown>): Promise<{ p99: number; max: number; elapsed: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // The histogram's first tick only sets its clock; a stall before it would go unrecorded.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  await work();
  const elapsed = performance.now() - started;
  // A stalled loop's delay is recorded when its timer finally fires: give it the chance.
  await new Promise((resolve) => setTimeout(resolve, 50));
  histogram.disable();
  return { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, elapsed };
}

describe('converter and the event loop', () => {
  it('keeps the event loop responsive while converting a large file in the pool, unlike inline', async () => {
    const pooled = new ConverterReader({ offload: pool, settings });
    // Start the worker and load the XML modules first, so only the conversion is measured.
    await pooled.read({ data: '<a><b>warm</b></a>', name: 'warm.xml' });
    const inPool = await measure(async () => {
      const [doc] = await pooled.read({ data: bigXml, name: 'big.xml' });
      expect(doc!.content).toContain('- name: copper kettle');
    });
    const inline = new ConverterReader({ offload: 'inline', settings });
    await inline.read({ data: '<a><b>warm</b></a>', name: 'warm.xml' });
    const onLoop = await measure(() => inline.read({ data: bigXml, name: 'big.xml' }));
    process.stdout.write(
      `event-loop delay converting ${(bigXml.length / 1e6).toFixed(1)} MB of XML: pool p99 ${inPool.p99.toFixed(1)} ms, max ${inPool.max.toFixed(1)} ms (${Math.round(inPool.elapsed)} ms); inline p99 ${onLoop.p99.toFixed(1)} ms, max ${onLoop.max.toFixed(1)} ms (${Math.round(onLoop.elapsed)} ms)\n`,
    );
    expect(inPool.p99).toBeLessThan(50);
    // Inline, one stall lasts most of the conversion.
    expect(onLoop.max).toBeGreaterThan(300);
    expect(onLoop.max).toBeGreaterThan(inPool.p99 * 10);
  });
});
