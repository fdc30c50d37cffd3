/**
 * OCR: images rendered in the test (PNG, JPEG, WebP by @napi-rs/canvas; BMP and TIFF written
 * from the same pixels) and a scanned PDF (pdfkit, pages that are pictures of text) are read by
 * tesseract.js with the English data from node_modules. Run under `unshare -n` (no network) it
 * passes the same: nothing is downloaded.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { bmp, scannedPdf, textImage, textPixels, tiff } from '../../../../test/support/converter-fixtures.js';
import { WorkerPool } from '../../../workers/pool.js';
import { ConverterReader } from './converter.js';
import { ocrAssets } from './converter/ocr.js';
import { DEFAULT_LIMITS, NO_TRANSCRIPTION } from '../../../settings/converter.js';

const pool = new WorkerPool({ size: 2 });
afterAll(() => pool.close());
const reader = (limits = DEFAULT_LIMITS) => new ConverterReader({ offload: pool, settings: { transcription: NO_TRANSCRIPTION, limits } });
const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9\s]/g, ' ').split(/\s+/).filter(Boolean);

describe('ConverterReader OCR', () => {
  it('uses tesseract assets from node_modules only', () => {
    const { langPath, workerPath, corePath } = ocrAssets();
    for (const path of [langPath, workerPath, corePath]) expect(path).toContain('/node_modules/');
    expect(existsSync(`${langPath}/eng.traineddata.gz`)).toBe(true);
    expect(existsSync(workerPath)).toBe(true);
    expect(existsSync(`${corePath}/tesseract-core-simd-lstm.wasm`)).toBe(true);
  });

  it('recognises the words of PNG, JPEG, WebP, BMP and TIFF images', async () => {
    const lines = ['Quarterly zirconium report', 'Shipments rose in Rotterdam'];
    const pixels = textPixels(lines);
    const files: [string, Uint8Array, string][] = [
      ['scan.png', textImage(lines, 'png'), 'png'],
      ['scan.jpg', textImage(lines, 'jpeg'), 'jpeg'],
      ['scan.webp', textImage(lines, 'webp'), 'webp'],
      ['scan.bmp', bmp(pixels), 'bmp'],
      ['scan.tif', tiff(pixels), 'tiff'],
    ];
    const converter = reader();
    for (const [name, data, format] of files) {
      const [doc, ...rest] = await converter.read({ data, name });
      expect(rest, name).toEqual([]);
      expect(words(doc!.content), name).toEqual(expect.arrayContaining(['quarterly', 'zirconium', 'report', 'shipments', 'rose', 'rotterdam']));
      expect(doc!.meta_data, name).toMatchObject({ format, ocr: true });
      expect(doc!.meta_data.ocr_confidence as number, name).toBeGreaterThan(60);
    }
    // The bytes decide: a PNG named .jpeg is read as the PNG it is.
    const [misnamed] = await converter.read({ data: files[0]![1], name: 'photo.jpeg' });
    expect(misnamed!.meta_data.format).toBe('png');
  });

  it('OCRs the pages of a scanned PDF that have no text layer, and keeps the text layer of the others', async () => {
    const pdf = await scannedPdf([['Invoice for molybdenum ingots', 'Total due in thirty days']], ['This page has a real text layer about vanadium smelting.']);
    const pages = await reader().read({ data: pdf, name: 'scan.pdf' });
    expect(pages.map((p) => p.meta_data.page)).toEqual([1, 2]);
    expect(pages[0]!.meta_data).toMatchObject({ format: 'pdf', page: 1, ocr: true });
    expect(words(pages[0]!.content)).toEqual(expect.arrayContaining(['invoice', 'molybdenum', 'ingots', 'total', 'due']));
    expect(pages[1]!.meta_data.ocr).toBeUndefined();
    expect(pages[1]!.content).toContain('vanadium smelting');
  });

  it('bounds OCR: pages past the limit are noted, images past the pixel limit refused', async () => {
    const pdf = await scannedPdf([['First scanned page about tungsten'], ['Second scanned page about cobalt']]);
    const notes: string[] = [];
    const pages = await reader({ ...DEFAULT_LIMITS, ocrMaxPages: 1 }).read({ data: pdf, name: 'two.pdf' }, { notes });
    expect(pages.map((p) => p.meta_data.page)).toEqual([1]);
    expect(notes).toEqual(['page 2 has no text layer and was not OCRed (at most 1 pages of a file are)']);
    const small = reader({ ...DEFAULT_LIMITS, ocrMaxPixels: 100_000 });
    await expect(small.read({ data: textImage(['too big'], 'png'), name: 'big.png' })).rejects.toThrow(
      /^converter reader: "big\.png" is 1100x\d+ pixels, more than the 100000 pixels OCR may process \(CONVERTER_OCR_MAX_PIXELS\); scale it down and upload it again$/,
    );
    // A PNG header that claims a giant canvas is refused before anything is decoded.
    const bomb = textImage(['x'], 'png').slice();
    new DataView(bomb.buffer).setUint32(16, 100_000);
    new DataView(bomb.buffer).setUint32(20, 100_000);
    await expect(reader().read({ data: bomb, name: 'bomb.png' })).rejects.toThrow('converter reader: "bomb.png" is 100000x100000 pixels');
  });
});
