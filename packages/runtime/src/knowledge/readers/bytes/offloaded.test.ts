/**
 * Reading in a worker moves a copy of the bytes to the thread: the caller's Buffer (or a view
 * into a larger buffer) is left as it was.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { pdfWithPages } from '../../../../test/support/office-fixtures.js';
import { readInWorker } from './offloaded.js';
import { WorkerPool } from '../../../workers/pool.js';

const pool = new WorkerPool({ size: 1 });
afterAll(() => pool.close());

describe('readInWorker', () => {
  it('leaves the caller’s bytes intact, whether a Buffer or a view into a larger buffer', async () => {
    const pdf = pdfWithPages([['Kettles boil water.']]);
    // Buffer.alloc owns its memory (Buffer.from of a small array would share Node's pool).
    const buffer = Buffer.alloc(pdf.byteLength);
    buffer.set(pdf);
    const docs = await readInWorker(pool, 'pdf', { data: buffer, name: 'a.pdf' }, undefined);
    expect(docs.map((d) => d.content.trim())).toEqual(['Kettles boil water.']);
    expect(buffer.byteLength).toBe(pdf.byteLength);
    expect(Buffer.compare(buffer, Buffer.from(pdf))).toBe(0);

    const wide = new Uint8Array(pdf.byteLength + 10);
    wide.set(pdf, 5);
    const view = wide.subarray(5, 5 + pdf.byteLength);
    await readInWorker(pool, 'pdf', { data: view, name: 'b.pdf' }, undefined);
    expect(view.byteLength).toBe(pdf.byteLength);
    expect(wide.byteLength).toBe(pdf.byteLength + 10);
  });
});
