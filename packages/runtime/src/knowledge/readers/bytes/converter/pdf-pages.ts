/**
 * @module knowledge/readers/bytes/converter/pdf-pages
 * A PDF's pages as documents: the text layer where there is one, OCR of the rendered page where
 * there is not, within the converter's limits:
 *
 * - the file's streams are measured before PDF.js opens it (pdf-scan.ts, the content limits);
 * - PDF.js is told to leave out any image whose dictionary declares more than
 *   `CONVERTER_OCR_MAX_PIXELS` (`maxImageSize`, checked before it decodes anything), and such an
 *   image is noted; an image whose JPEG / JPEG 2000 / JBIG2 data declares more than the limit
 *   while its dictionary declares less would slip past that check, so then no page is rendered;
 * - a page is rendered at about 200 dpi within the pixel limit, and a page too large to render
 *   at 72 dpi within it is not OCRed (ocr.ts), with a note.
 *
 * When no page gives text, the refusal says which of these limits left pages out.
 */
import { unprocessable } from '../../../../errors.js';
import type { ConvertLimits } from '../../../../settings/converter.js';
import type { Document } from '../../../types.js';
import { pdfTextPages } from '../pdf.js';
import type { PdfImage } from '../pdf-scan.js';
import { recognise, renderPdfPage } from './ocr.js';
import { asConverter } from './office.js';

/** A page's text layer counts when it has this many letters or digits; fewer means a scan. */
const MIN_TEXT_LAYER = 16;

const pixels = (width: number | undefined, height: number | undefined) => (width ?? 0) * (height ?? 0);

/** Images past the pixel limit: noted, and whether PDF.js's own check (on the dictionary's size) would miss one. */
function oversizedImages(images: readonly PdfImage[], maxPixels: number): { notes: string[]; unsafe: boolean } {
  const notes: string[] = [];
  let unsafe = false;
  for (const image of images) {
    const declared = pixels(image.width, image.height);
    const codec = image.codec ? pixels(image.codec.width, image.codec.height) : 0;
    if (declared <= maxPixels && codec <= maxPixels) continue;
    const size = codec > declared ? `${image.codec!.width}x${image.codec!.height}` : `${image.width}x${image.height}`;
    notes.push(`an image (${image.where}) is ${size} pixels, more than the ${maxPixels} the converter may decode (CONVERTER_OCR_MAX_PIXELS)`);
    if (declared <= maxPixels) unsafe = true;
  }
  return { notes, unsafe };
}

export async function pdfDocuments(data: Uint8Array, name: string, base: string, limits: ConvertLimits, notes: string[]): Promise<Document[]> {
  const { pdf, pages, images } = await asConverter('converter', () => pdfTextPages(data, name, 'converter', limits, limits.ocrMaxPixels));
  try {
    const documents: Document[] = [];
    const skipped: number[] = [];
    /** What a limit left out, for the notes and for the refusal when nothing is left. */
    const limited: string[] = [];
    const oversized = oversizedImages(images, limits.ocrMaxPixels);
    let ocred = 0;
    for (const [i, text] of pages.entries()) {
      const number = i + 1;
      const textPage = () => {
        if (text) documents.push({ content: text, name: base, id: `${base}_${number}`, meta_data: { page: number } });
      };
      if ((text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= MIN_TEXT_LAYER) {
        textPage();
        continue;
      }
      if (ocred >= limits.ocrMaxPages) {
        skipped.push(number);
        continue;
      }
      if (oversized.unsafe) {
        if (limited.length === 0) limited.push(...oversized.notes.map((n) => `${n}, though its dictionary says less; no page was rendered for OCR`));
        textPage();
        continue;
      }
      ocred++;
      if (ocred === 1) limited.push(...oversized.notes.map((n) => `${n}; it was left out of OCR`));
      let render: Awaited<ReturnType<typeof renderPdfPage>>;
      try {
        render = await renderPdfPage(pdf, number, limits.ocrMaxPixels);
      } catch (cause) {
        notes.push(`page ${number}: could not be rendered for OCR (${cause instanceof Error ? cause.message : String(cause)})`);
        textPage();
        continue;
      }
      if ('skipped' in render) {
        limited.push(render.skipped);
        textPage();
        continue;
      }
      const { text: recognised, confidence } = await recognise(render.png, `${name} page ${number}`);
      const content = recognised || text;
      if (content) documents.push({ content, name: base, id: `${base}_${number}`, meta_data: { page: number, ...(recognised ? { ocr: true, ocr_confidence: confidence } : {}) } });
    }
    notes.push(...limited);
    if (skipped.length > 0) {
      const one = skipped.length === 1;
      notes.push(`${one ? 'page' : 'pages'} ${skipped.join(', ')} ${one ? 'has' : 'have'} no text layer and ${one ? 'was' : 'were'} not OCRed (at most ${limits.ocrMaxPages} pages of a file are)`);
    }
    if (documents.length === 0) {
      const why = limited.length > 0 ? ` (${limited.join('; ')})` : '';
      throw unprocessable(`converter reader: "${name}" has no text: no page has a text layer, and OCR recognised none${why}`);
    }
    return documents;
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
