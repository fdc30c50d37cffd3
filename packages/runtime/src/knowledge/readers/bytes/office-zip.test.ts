import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../errors.js';
import { isOle, isZip, openZip, readPart, resolvePart } from './office-zip.js';

describe('office-zip', () => {
  it('stops inflating a part at the limit, whatever the zip declares', async () => {
    const data = await new JSZip().file('big.xml', 'x'.repeat(100_000)).generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    const input = { data, name: 'a.pptx' };
    const zip = await openZip(data, input, 'pptx', 'PPTX');
    expect((await readPart(zip, 'big.xml', input, 'pptx'))?.length).toBe(100_000);
    expect(await readPart(zip, 'missing.xml', input, 'pptx')).toBeUndefined();
    const error = await readPart(zip, 'big.xml', input, 'pptx', 10_000).catch((e: unknown) => e);
    expect(RuntimeError.isInstance(error) && error.message).toBe('pptx reader: "a.pptx" has a damaged part big.xml (it inflates to more than 10000 bytes)');
  });

  it('recognises containers and resolves relationship targets', () => {
    expect(isZip(new Uint8Array([0x50, 0x4b, 0x03, 0x04]))).toBe(true);
    expect(isZip(new TextEncoder().encode('PK'))).toBe(false);
    expect(isOle(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))).toBe(true);
    expect(resolvePart('ppt/slides/', '../notesSlides/notesSlide1.xml')).toBe('ppt/notesSlides/notesSlide1.xml');
    expect(resolvePart('ppt/', 'slides/slide2.xml')).toBe('ppt/slides/slide2.xml');
    expect(resolvePart('ppt/slides/', '/ppt/media/a.png')).toBe('ppt/media/a.png');
  });
});
