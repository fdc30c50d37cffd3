/**
 * @module knowledge/readers/bytes/converter/ocr
 * Optical character recognition with tesseract.js (Tesseract compiled to WebAssembly), entirely
 * from node_modules: nothing is downloaded, ever.
 *
 * - **Language data**: English LSTM models (`4.0.0_best_int/eng.traineddata.gz`) from the npm
 *   package @tesseract.js-data/eng, passed as a local `langPath`. Without an explicit path
 *   tesseract.js would fetch it from a CDN; `cacheMethod: 'none'` keeps it from reading or
 *   writing an `eng.traineddata` cache in the working directory.
 * - **Worker and core**: tesseract.js runs recognition in its own worker thread, started from the
 *   worker script resolved here (`workerPath`); in Node that script loads the WebAssembly core
 *   with `require('tesseract.js-core/...')`, i.e. from node_modules (no `corePath` URL is used).
 * - One Tesseract worker is kept per conversion worker and reused (loading the model takes
 *   ~0.3 s); it ends with the conversion worker, which is how a cancelled or timed-out OCR stops.
 *
 * Images over `maxPixels` are refused before decoding (their size is read from the header), so
 * a small file claiming a huge canvas cannot exhaust memory. Scanned PDF pages are rendered with
 * PDF.js (through unpdf) onto @napi-rs/canvas, a Skia build shipped as a prebuilt binary inside
 * its npm package, at about 200 dpi within the same pixel bound.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { unprocessable } from '../../../../errors.js';
import type { PdfDocument } from '../pdf.js';

type TesseractWorker = Awaited<ReturnType<typeof import('tesseract.js').createWorker>>;

const require = createRequire(import.meta.url);
let engine: Promise<TesseractWorker> | undefined;

/** Where the offline OCR assets are, resolved from node_modules. */
export function ocrAssets(): { langPath: string; workerPath: string; corePath: string } {
  return {
    langPath: join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int'),
    workerPath: require.resolve('tesseract.js/src/worker-script/node/index.js'),
    corePath: dirname(require.resolve('tesseract.js-core/package.json')),
  };
}

function tesseract(): Promise<TesseractWorker> {
  engine ??= (async () => {
    const { createWorker, OEM } = await import('tesseract.js');
    const { langPath, workerPath } = ocrAssets();
    return createWorker('eng', OEM.LSTM_ONLY, {
      langPath,
      workerPath,
      gzip: true,
      cacheMethod: 'none',
      // Without a handler, tesseract.js rethrows a failed job from an event listener, which
      // would crash this thread; the job's promise rejects either way.
      errorHandler: () => undefined,
    });
  })().catch((error: unknown) => {
    engine = undefined;
    throw error;
  });
  return engine;
}

/** Stops the Tesseract worker, if one was started. */
export async function closeOcr(): Promise<void> {
  const current = engine;
  engine = undefined;
  if (current) await (await current).terminate();
}

export interface Recognised {
  text: string;
  /** Tesseract's mean word confidence, 0-100. */
  confidence: number;
}

/** Recognises the text of an encoded image (PNG, JPEG, TIFF, BMP, WebP). */
export async function recognise(image: Uint8Array, fileName: string): Promise<Recognised> {
  const worker = await tesseract();
  try {
    const { data } = await worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
    const text = data.text
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    return { text, confidence: Math.round(data.confidence) };
  } catch (cause) {
    throw unprocessable(`converter reader: "${fileName}" could not be read as an image (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
}

/** Width and height from an image's header, when the format is one we read; undefined otherwise. */
export function imageSize(data: Uint8Array, format: string): { width: number; height: number } | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  try {
    switch (format) {
      case 'png':
        return { width: view.getUint32(16), height: view.getUint32(20) };
      case 'bmp': {
        if (view.getUint32(14, true) === 12) return { width: view.getUint16(18, true), height: view.getUint16(20, true) };
        return { width: Math.abs(view.getInt32(18, true)), height: Math.abs(view.getInt32(22, true)) };
      }
      case 'jpeg': {
        let i = 2;
        while (i + 9 < data.length) {
          if (data[i] !== 0xff) return undefined;
          const marker = data[i + 1]!;
          if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { height: view.getUint16(i + 5), width: view.getUint16(i + 7) };
          i += 2 + view.getUint16(i + 2);
        }
        return undefined;
      }
      case 'webp': {
        const chunk = String.fromCharCode(...data.subarray(12, 16));
        if (chunk === 'VP8 ') return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
        if (chunk === 'VP8L') {
          const b = data.subarray(21, 25);
          return { width: 1 + (((b[1]! & 0x3f) << 8) | b[0]!), height: 1 + (((b[3]! & 0xf) << 10) | (b[2]! << 2) | ((b[1]! & 0xc0) >> 6)) };
        }
        if (chunk === 'VP8X') return { width: 1 + (data[24]! | (data[25]! << 8) | (data[26]! << 16)), height: 1 + (data[27]! | (data[28]! << 8) | (data[29]! << 16)) };
        return undefined;
      }
      case 'tiff': {
        const little = data[0] === 0x49;
        const ifd = view.getUint32(4, little);
        const count = view.getUint16(ifd, little);
        let width: number | undefined;
        let height: number | undefined;
        for (let e = 0; e < count && e < 512; e++) {
          const at = ifd + 2 + e * 12;
          const tag = view.getUint16(at, little);
          const type = view.getUint16(at + 2, little);
          const value = type === 3 ? view.getUint16(at + 8, little) : view.getUint32(at + 8, little);
          if (tag === 256) width = value;
          if (tag === 257) height = value;
        }
        return width !== undefined && height !== undefined ? { width, height } : undefined;
      }
      default:
        return undefined;
    }
  } catch {
    // A header too short to hold its size: tesseract will refuse the image with its own reason.
    return undefined;
  }
}

/** Refuses an image whose header declares more pixels than OCR may process. */
export function checkImageSize(data: Uint8Array, format: string, fileName: string, maxPixels: number): void {
  const size = imageSize(data, format);
  if (!size) return;
  if (size.width === 0 || size.height === 0) throw unprocessable(`converter reader: "${fileName}" is an empty image (${size.width}x${size.height})`);
  if (size.width * size.height > maxPixels) {
    throw unprocessable(`converter reader: "${fileName}" is ${size.width}x${size.height} pixels, more than the ${maxPixels} pixels OCR may process; scale it down and upload it again`);
  }
}

/** Renders one PDF page as a PNG for OCR, at about 200 dpi but within `maxPixels`. */
export async function renderPdfPage(pdf: PdfDocument, pageNumber: number, maxPixels: number): Promise<Uint8Array> {
  const { renderPageAsImage } = await import('unpdf');
  const page = await pdf.getPage(pageNumber);
  const { width, height } = page.getViewport({ scale: 1 });
  const wanted = 200 / 72;
  const scale = Math.max(0.1, Math.min(wanted, Math.sqrt(maxPixels / Math.max(1, width * height))));
  const png = await renderPageAsImage(pdf, pageNumber, { canvasImport: () => import('@napi-rs/canvas'), scale });
  return new Uint8Array(png);
}
