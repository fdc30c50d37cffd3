/**
 * Issue 26, the budgets where bytes expand: each hostile file, read by the production reader in
 * a process of its own (child-read.ts), ends in a refusal naming the limit and its setting, and
 * the read's peak RSS stays far under 1 GB over the process's warmed-up idle size. Before these
 * budgets the same files took the readers to 1.7-5.3 GB.
 */
import { describe, expect, it } from 'vitest';
import { readInChild, type ChildReader } from './support/child-read.js';
import { docxWith, documentBomb, epubRepeatingChapter, gzipBomb, pptxRepeatingSlide, sheetBomb, SHEET, xlsxWith } from './support/hostile-files.js';
import {
  bmpClaiming,
  jpegClaiming,
  pdfChainedBomb,
  pdfFlateBomb,
  pdfManyBombs,
  pdfWithHugeImage,
  pdfWithHugePage,
  pdfWithLyingJpeg,
  pngClaiming,
  tiffClaiming,
  webpClaiming,
} from './support/hostile-media.js';

/** The most one hostile read may add to the process's RSS. */
const MAX_PEAK_MB = 1000;
const GiB = 1024;

const WARM = {
  docx: docxWith({ data: '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Warm</w:t></w:r></w:p></w:body></w:document>', deflate: true }),
  excel: xlsxWith({ data: SHEET, deflate: true }),
  pptx: pptxRepeatingSlide(1, 0),
  pdf: pdfWithHugePage(100),
  // An image the converter reads small: loads the converter (and refuses before OCR).
  converter: pngClaiming(1, 0),
} satisfies Record<ChildReader, Uint8Array>;

interface Case {
  what: string;
  kind: ChildReader;
  name: string;
  file: () => Uint8Array;
  /** The whole message (a pattern where it holds a byte count the generator decides). */
  error: string | RegExp;
}

/** A pattern matching `text` whole (toMatch with a string would take any substring). */
const whole = (error: string | RegExp) => (typeof error === 'string' ? new RegExp(`^${error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : error);
const pixels = (name: string, size: string) => `converter reader: "${name}" is ${size} pixels, more than the 40000000 pixels OCR may process (CONVERTER_OCR_MAX_PIXELS); scale it down and upload it again`;
const noText = (name: string, why: string) => `converter reader: "${name}" has no text: no page has a text layer, and OCR recognised none (${why})`;

const cases: Case[] = [
  {
    what: 'a .docx whose document part says 1000 bytes and inflates to 2 GiB',
    kind: 'docx',
    name: 'understated.docx',
    file: () => docxWith({ deflated: documentBomb(2 * GiB), declaredSize: 1000 }),
    error: 'docx reader: "understated.docx" has an XML part word/document.xml larger than 8 MB (KNOWLEDGE_MAX_XML_PART_MB)',
  },
  {
    what: 'a .docx whose document part states 2.25 GiB (a negative number to JSZip)',
    kind: 'docx',
    name: 'negative.docx',
    file: () => docxWith({ deflated: documentBomb(2300), declaredSize: 0x90000000 }),
    error: /^docx reader: "negative\.docx" would inflate to 24159\d{5} bytes, more than the 256 MB allowed \(KNOWLEDGE_MAX_INFLATED_MB\)$/,
  },
  {
    what: 'a .docx understating its document part in zip64 fields',
    kind: 'docx',
    name: 'zip64.docx',
    file: () => docxWith({ deflated: documentBomb(GiB), declaredSize: 1000, zip64: true }),
    error: 'docx reader: "zip64.docx" has an XML part word/document.xml larger than 8 MB (KNOWLEDGE_MAX_XML_PART_MB)',
  },
  {
    what: 'an .xlsx whose sheet says 1000 bytes and inflates to 2 GiB',
    kind: 'excel',
    name: 'understated.xlsx',
    file: () => xlsxWith({ deflated: sheetBomb(2 * GiB), declaredSize: 1000 }),
    error: 'excel reader: "understated.xlsx" has a part xl/worksheets/sheet1.xml that inflates past 64 MB (KNOWLEDGE_MAX_PART_MB)',
  },
  {
    what: 'an .xlsx whose sheet states 2.25 GiB',
    kind: 'excel',
    name: 'negative.xlsx',
    file: () => xlsxWith({ deflated: sheetBomb(2300), declaredSize: 0x90000000 }),
    error: /^excel reader: "negative\.xlsx" would inflate to 24159\d{5} bytes, more than the 256 MB allowed \(KNOWLEDGE_MAX_INFLATED_MB\)$/,
  },
  {
    what: 'a .pptx listing one 4 MiB slide 2000 times',
    kind: 'pptx',
    name: 'echo.pptx',
    file: () => pptxRepeatingSlide(2000, 4),
    error: 'pptx reader: "echo.pptx" inflates past 256 MB (KNOWLEDGE_MAX_INFLATED_MB)',
  },
  {
    what: 'a .docx bomb given to the converter',
    kind: 'converter',
    name: 'understated.docx',
    file: () => docxWith({ deflated: documentBomb(2 * GiB), declaredSize: 1000 }),
    error: 'converter reader: "understated.docx" has an XML part word/document.xml larger than 8 MB (KNOWLEDGE_MAX_XML_PART_MB)',
  },
  {
    what: 'an .xlsx bomb (zip64, understated) given to the converter',
    kind: 'converter',
    name: 'zip64.xlsx',
    file: () => xlsxWith({ deflated: sheetBomb(2 * GiB), declaredSize: 1000, zip64: true }),
    error: 'converter reader: "zip64.xlsx" has a part xl/worksheets/sheet1.xml that inflates past 64 MB (KNOWLEDGE_MAX_PART_MB)',
  },
  {
    what: 'a .tar.gz inflating to 4 GiB',
    kind: 'converter',
    name: 'bomb.tar.gz',
    file: () => gzipBomb(4 * GiB),
    error: 'converter reader: "bomb.tar.gz" inflates to more than 268435456 bytes, the most an archive may hold (CONVERTER_ARCHIVE_MAX_BYTES)',
  },
  { what: 'a PNG claiming 50,000 x 50,000', kind: 'converter', name: 'huge.png', file: () => pngClaiming(50_000, 50_000), error: pixels('huge.png', '50000x50000') },
  {
    what: 'a JPEG hiding its size behind a fill byte and an EXIF thumbnail',
    kind: 'converter',
    name: 'fill.jpg',
    file: () => jpegClaiming(50_000, 50_000, { fill: true, thumbnail: true }),
    error: pixels('fill.jpg', '50000x50000'),
  },
  { what: 'a TIFF giving its size tags twice', kind: 'converter', name: 'twice.tiff', file: () => tiffClaiming([[[10, 10], [50_000, 50_000]]]), error: pixels('twice.tiff', '50000x50000') },
  { what: 'a BMP claiming 50,000 x 50,000 top-down', kind: 'converter', name: 'huge.bmp', file: () => bmpClaiming(50_000, 50_000), error: pixels('huge.bmp', '50000x50000') },
  { what: 'a WebP with a small canvas and a huge frame', kind: 'converter', name: 'frame.webp', file: () => webpClaiming([16, 16], [16_000, 16_000]), error: pixels('frame.webp', '16000x16000') },
  {
    what: 'a PDF showing one 20,000 x 20,000 image',
    kind: 'converter',
    name: 'image.pdf',
    file: () => pdfWithHugeImage(20_000),
    error: noText('image.pdf', 'an image (object 4 0) is 20000x20000 pixels, more than the 40000000 the converter may decode (CONVERTER_OCR_MAX_PIXELS); it was left out of OCR'),
  },
  {
    what: 'a PDF image whose dictionary says 100 x 100 and whose JPEG says 50,000 x 50,000',
    kind: 'converter',
    name: 'lying.pdf',
    file: () => pdfWithLyingJpeg(50_000),
    error: noText(
      'lying.pdf',
      'an image (object 4 0) is 50000x50000 pixels, more than the 40000000 the converter may decode (CONVERTER_OCR_MAX_PIXELS), though its dictionary says less; no page was rendered for OCR',
    ),
  },
  {
    what: 'a PDF page of 200 x 200 inches',
    kind: 'converter',
    name: 'page.pdf',
    file: () => pdfWithHugePage(14_400),
    error: noText('page.pdf', 'page 1 is 14400x14400 points, too large to render for OCR at 72 dpi or more within 40000000 pixels (CONVERTER_OCR_MAX_PIXELS); it was not OCRed'),
  },
  {
    what: 'a PDF whose content stream is a 4 GiB Flate bomb',
    kind: 'pdf',
    name: 'flate.pdf',
    file: () => pdfFlateBomb(4 * GiB),
    error: 'pdf reader: "flate.pdf" has a stream (object 4 0) that decodes past 64 MB (KNOWLEDGE_MAX_PART_MB)',
  },
  {
    what: 'the Flate bomb behind an ASCIIHex layer',
    kind: 'pdf',
    name: 'chained.pdf',
    file: () => pdfChainedBomb(GiB),
    error: 'pdf reader: "chained.pdf" has a stream (object 4 0) that decodes past 64 MB (KNOWLEDGE_MAX_PART_MB)',
  },
  {
    what: 'a PDF of five 60 MiB streams',
    kind: 'pdf',
    name: 'many.pdf',
    file: () => pdfManyBombs(5, 60),
    error: 'pdf reader: "many.pdf" has streams that decode past 256 MB in all (KNOWLEDGE_MAX_INFLATED_MB)',
  },
  {
    what: 'the Flate bomb given to the converter',
    kind: 'converter',
    name: 'flate.pdf',
    file: () => pdfFlateBomb(4 * GiB),
    error: 'converter reader: "flate.pdf" has a stream (object 4 0) that decodes past 64 MB (KNOWLEDGE_MAX_PART_MB)',
  },
];

describe('hostile files end in a refusal naming the limit, within bounded memory', () => {
  it.each(cases)('$what', async ({ kind, name, file, error }) => {
    const read = await readInChild(kind, file(), name, WARM[kind]);
    expect(read.error).toMatch(whole(error));
    expect(read.peakMb).toBeLessThan(MAX_PEAK_MB);
  }, 180_000);

  it('an EPUB listing one chapter 2000 times is read once, with a note, within bounded memory', async () => {
    const read = await readInChild('converter', epubRepeatingChapter(2000, 512), 'echo.epub', WARM.converter);
    expect(read.error).toBeUndefined();
    expect(read.documents).toBe(1);
    expect(read.notes).toEqual(['chapter chapter.xhtml is listed 2000 times in the spine; it was read once']);
    expect(read.peakMb).toBeLessThan(MAX_PEAK_MB);
  }, 180_000);

  it('a PDF whose only image is 20,000 x 20,000 is read for text by the pdf reader without decoding it', async () => {
    const read = await readInChild('pdf', pdfWithHugeImage(20_000), 'image.pdf', WARM.pdf);
    expect(read.error).toBe('pdf reader: "image.pdf" has no extractable text (a scanned PDF needs OCR: upload it with reader_id converter)');
    expect(read.peakMb).toBeLessThan(MAX_PEAK_MB);
  }, 180_000);
});
