/**
 * Files that expand: zip parts whose headers understate what they inflate to, an archive that
 * lists one part over and over, a gzip bomb, an XML entity bomb, images whose headers claim
 * 2.5 gigapixels (the JPEG fill-byte and TIFF duplicate-tag spellings included), and PDFs with
 * a 20,000-pixel image, a huge page and a Flate bomb. Each is a few KB to a few MB on the wire.
 */
import { denseDocument, docxWith, documentBomb, epubRepeatingChapter, gzipBomb, pptxRepeatingSlide, sheetBomb, xlsxWith } from '../../packages/runtime/test/support/hostile-files.js';
import { jpegClaiming, pdfFlateBomb, pdfWithHugeImage, pdfWithHugePage, pngClaiming, tiffClaiming } from '../../packages/runtime/test/support/hostile-media.js';
import type { HostileCase } from './case.js';

const GiB = 1024;
const INFLATED = /KNOWLEDGE_MAX_(INFLATED|PART|XML_PART)_MB/;
const PIXELS = /CONVERTER_OCR_MAX_PIXELS/;

/** word/document.xml whose ten nested entities expand to 10^9 "lol"s. */
function billionLaughs(): string {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE w:document [${entities.join('')}]><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`;
}

export const fileCases: HostileCase[] = [
  {
    name: 'DOCX whose document part inflates to 4 GiB while its headers say 1 KB',
    class: 'zip bomb',
    send: { kind: 'file', name: 'understated.docx', bytes: () => docxWith({ deflated: documentBomb(4 * GiB), declaredSize: 1024 }) },
    expect: { status: 'failed', message: INFLATED },
  },
  {
    name: 'DOCX whose headers state 3 GiB (negative as a signed 32-bit size)',
    class: 'zip bomb',
    send: { kind: 'file', name: 'negative.docx', bytes: () => docxWith({ deflated: documentBomb(3 * GiB), declaredSize: 3 * 1024 * 1024 * 1024 }) },
    expect: { status: 'failed', message: INFLATED },
  },
  {
    name: 'DOCX of 7 MiB of one-letter paragraphs (every size honest, under the part limits)',
    class: 'zip bomb',
    send: { kind: 'file', name: 'dense.docx', bytes: () => docxWith({ deflated: denseDocument(7) }) },
    // What the parser builds of it, not its bytes, is the bomb: the reading process's limit stops it.
    expect: { status: 'failed', message: /"dense\.docx" needed more than 512 MB of memory and was stopped \(KNOWLEDGE_WORKER_RSS_MB\)/ },
  },
  {
    name: 'XLSX whose sheet is larger than declared',
    class: 'zip bomb',
    send: { kind: 'file', name: 'sheet.xlsx', bytes: () => xlsxWith({ deflated: sheetBomb(2 * GiB), declaredSize: 4096 }) },
    expect: { status: 'failed', message: INFLATED },
  },
  {
    name: 'EPUB listing one large chapter 2,000 times',
    class: 'zip bomb',
    send: { kind: 'file', name: 'echo.epub', bytes: () => epubRepeatingChapter(2000, 2048) },
    expect: { status: 'completed', message: /chapter\.xhtml is listed 2000 times in the spine; it was read once/ },
  },
  {
    name: 'PPTX listing one small slide 1,000 times',
    class: 'zip bomb',
    send: { kind: 'file', name: 'echo.pptx', bytes: () => pptxRepeatingSlide(1000, 0) },
    expect: { status: 'completed', message: /^$/ },
  },
  {
    name: 'PPTX listing one 1 MiB slide 1,000 times',
    class: 'zip bomb',
    send: { kind: 'file', name: 'echo-big.pptx', bytes: () => pptxRepeatingSlide(1000, 1) },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_INFLATED_MB/ },
  },
  {
    name: '.tar.gz inflating to 4 GiB',
    class: 'zip bomb',
    send: { kind: 'file', name: 'bomb.tar.gz', bytes: () => gzipBomb(4 * GiB) },
    expect: { status: 'failed', message: /CONVERTER_ARCHIVE_MAX_BYTES/ },
  },
  {
    name: 'DOCX with a billion-laughs entity bomb',
    class: 'XML bomb',
    send: { kind: 'file', name: 'laughs.docx', bytes: () => docxWith({ data: billionLaughs(), deflate: true }) },
    // The parser expands no entity it is not given: it refuses the file instead.
    expect: { status: 'failed', message: /"laughs\.docx" could not be read as DOCX .*entity not found/s },
  },
  {
    name: 'PNG claiming 50,000 x 50,000 pixels',
    class: 'image bomb',
    send: { kind: 'file', name: 'huge.png', bytes: () => pngClaiming(50_000, 50_000) },
    expect: { status: 'failed', message: PIXELS },
  },
  {
    name: 'JPEG claiming 50,000 x 50,000 behind fill bytes',
    class: 'image bomb',
    send: { kind: 'file', name: 'fill.jpg', bytes: () => jpegClaiming(50_000, 50_000, { fill: true }) },
    expect: { status: 'failed', message: PIXELS },
  },
  {
    name: 'TIFF whose size tags are repeated, the second claiming 50,000 x 50,000',
    class: 'image bomb',
    send: {
      kind: 'file',
      name: 'dup.tiff',
      bytes: () =>
        tiffClaiming([
          [
            [16, 16],
            [50_000, 50_000],
          ],
        ]),
    },
    expect: { status: 'failed', message: PIXELS },
  },
  {
    name: 'PDF showing one 20,000 x 20,000 image',
    class: 'PDF bomb',
    send: { kind: 'file', name: 'image.pdf', bytes: () => pdfWithHugeImage(20_000) },
    // Its pixels are never decoded: the page has no text, and OCR is the converter's, on request.
    expect: { status: 'failed', message: /"image\.pdf" has no extractable text/ },
  },
  {
    name: 'PDF with a 200,000-point page',
    class: 'PDF bomb',
    send: { kind: 'file', name: 'page.pdf', bytes: () => pdfWithHugePage(200_000) },
    expect: { status: 'failed', message: /"page\.pdf" has no extractable text/ },
  },
  {
    name: 'PDF whose content stream is a 4 GiB Flate bomb',
    class: 'PDF bomb',
    send: { kind: 'file', name: 'flate.pdf', bytes: () => pdfFlateBomb(4 * GiB) },
    expect: { status: 'failed', message: INFLATED },
  },
];
