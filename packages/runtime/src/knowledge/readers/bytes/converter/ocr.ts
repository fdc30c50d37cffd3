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
 * Images over `maxPixels` are refused before decoding (their size is read from the headers,
 * image-size.ts; an image whose headers do not say it is refused too), so a small file claiming
 * a huge canvas cannot exhaust memory. Scanned PDF pages are rendered with PDF.js (through unpdf)
 * onto @napi-rs/canvas, a Skia build shipped as a prebuilt binary inside its npm package, at
 * about 200 dpi within the same pixel bound; a page too large for that bound at 72 dpi is not
 * rendered (the old floor of 0.1 let a huge page through at any size).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { unprocessable } from '../../../../errors.js';
import { imageSize } from '../image-size.js';
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

/**
 * Refuses an image whose headers declare more pixels than OCR may process (the largest page or
 * frame counts), or whose headers do not say its size, before anything decodes it.
 */
export function checkImageSize(data: Uint8Array, format: string, fileName: string, maxPixels: number): void {
  const size = imageSize(data, format);
  if (!size) throw unprocessable(`converter reader: "${fileName}" could not be read as an image (its ${format.toUpperCase()} header does not say its size)`);
  if (size.width === 0 || size.height === 0) throw unprocessable(`converter reader: "${fileName}" is an empty image (${size.width}x${size.height})`);
  if (size.width * size.height > maxPixels) {
    throw unprocessable(`converter reader: "${fileName}" is ${size.width}x${size.height} pixels, more than the ${maxPixels} pixels OCR may process (CONVERTER_OCR_MAX_PIXELS); scale it down and upload it again`);
  }
}

/** A page is rendered at its own size (72 dpi) or more for OCR; smaller, its text could not be read. */
const MIN_OCR_SCALE = 1;

/**
 * The scale a page of `width` x `height` points is rendered at for OCR: about 200 dpi, less when
 * that would pass `maxPixels`; undefined when even 72 dpi would (the page is not rendered).
 */
export function ocrScale(width: number, height: number, maxPixels: number): number | undefined {
  const scale = Math.min(200 / 72, Math.sqrt(maxPixels / Math.max(1, width * height)));
  return scale >= MIN_OCR_SCALE ? scale : undefined;
}

export type PageRender = { png: Uint8Array } | { skipped: string };

/** Renders one PDF page as a PNG for OCR within `maxPixels`, or says why it was not rendered. */
export async function renderPdfPage(pdf: PdfDocument, pageNumber: number, maxPixels: number): Promise<PageRender> {
  const { renderPageAsImage } = await import('unpdf');
  const page = await pdf.getPage(pageNumber);
  const { width, height } = page.getViewport({ scale: 1 });
  const scale = ocrScale(width, height, maxPixels);
  if (scale === undefined) {
    return {
      skipped: `page ${pageNumber} is ${Math.round(width)}x${Math.round(height)} points, too large to render for OCR at 72 dpi or more within ${maxPixels} pixels (CONVERTER_OCR_MAX_PIXELS); it was not OCRed`,
    };
  }
  try {
    const png = await renderPageAsImage(pdf, pageNumber, { canvasImport: () => import('@napi-rs/canvas'), scale });
    return { png: new Uint8Array(png) };
  } finally {
    // Decoded images stay cached on the page until it is cleaned up.
    page.cleanup();
  }
}
