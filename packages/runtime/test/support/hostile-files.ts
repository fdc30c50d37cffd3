/**
 * @module test/support/hostile-files
 * Hostile files for the content-budget tests, generated in code in milliseconds (nothing is
 * downloaded or committed): zips whose headers lie about a part's size (understated, 2 GiB and
 * more, zip64), deflate bombs (gigabytes from flushed pieces repeated, never held), decks and
 * books that list one part over and over, gzip bombs, images whose headers claim 50,000 x 50,000
 * pixels (with the JPEG fill-byte and TIFF duplicate-tag tricks), and PDFs with a huge image, a
 * huge page or a Flate bomb.
 *
 * API (every function returns the file's bytes, ready to upload or hand to a reader):
 * - `docxWith(part)`, `xlsxWith(part)`: a valid package whose main part (word/document.xml,
 *   xl/worksheets/sheet1.xml) is `part`; with `documentBomb(mib)` / `sheetBomb(mib)` as its
 *   `deflated` data and `declaredSize` (1000 to understate, 0x90000000 for 2 GiB and more) or
 *   `zip64: true` to lie in zip64 fields; `denseDocument(mib)` for honest sizes whose parse is
 *   the bomb;
 * - `pptxRepeatingSlide(times, paddingMib)`, `epubRepeatingChapter(times, chapterKib)`: one part
 *   listed over and over;
 * - `gzipBomb(mib)`: a .tar.gz inflating to `mib` MiB;
 * - `zipOf(parts)` and `deflatedRepeat(...)`: the building blocks, for other shapes.
 * Images and PDFs are in hostile-media.ts. `test/content-budgets.test.ts` shows the refusal each
 * file earns under the default limits.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

const MiB = 1024 * 1024;

/** Raw deflate data and the size it inflates to. */
export interface Deflated {
  raw: Uint8Array;
  size: number;
}

/** Raw deflate of `text` ending in a full flush, so pieces can be concatenated. */
const piece = (text: string) => deflateRawSync(Buffer.from(text, 'latin1'), { level: 9, finishFlush: constants.Z_FULL_FLUSH });

/**
 * Raw deflate of `prefix + unit x times + suffix`: each piece is compressed once with a full
 * flush (so it stands alone) and the unit's bytes repeated, so 1 GiB costs ~1 MB and no memory.
 */
export function deflatedRepeat(unit: string, times: number, prefix = '', suffix = ''): Deflated {
  const body = piece(unit);
  const raw = Buffer.concat([piece(prefix), ...Array.from({ length: times }, () => body), deflateRawSync(Buffer.from(suffix, 'latin1'))]);
  return { raw: new Uint8Array(raw), size: prefix.length + unit.length * times + suffix.length };
}

/** `MiB` spaces (whitespace, so every XML parser takes it between elements). */
export const SPACES_MIB = ' '.repeat(MiB);

export interface ZipPart {
  name: string;
  /** Stored as is, or deflated when `deflate`. */
  data?: string | Uint8Array;
  deflate?: boolean;
  /** Ready deflate data (a bomb). */
  deflated?: Deflated;
  /** The uncompressed size written in both headers instead of the real one. */
  declaredSize?: number;
  /** Sizes written as 0xFFFFFFFF, with the real (or declared) ones in zip64 extra fields. */
  zip64?: boolean;
}

/** A zip of `parts` whose size fields say what the part asks. */
export function zipOf(parts: readonly ZipPart[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const plain = part.data === undefined ? undefined : Buffer.from(part.data);
    const data = part.deflated ? Buffer.from(part.deflated.raw) : part.deflate ? deflateRawSync(plain!) : plain!;
    const size = part.declaredSize ?? part.deflated?.size ?? plain!.length;
    const method = part.deflated || part.deflate ? 8 : 0;
    const name = Buffer.from(part.name, 'utf8');
    const extra = Buffer.alloc(part.zip64 ? 20 : 0);
    if (part.zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(16, 2);
      extra.writeBigUInt64LE(BigInt(size), 4);
      extra.writeBigUInt64LE(BigInt(data.length), 12);
    }
    const u32 = (n: number) => (part.zip64 ? 0xffffffff : n >>> 0);
    const crc = plain ? crc32(plain) : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(part.zip64 ? 45 : 20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(u32(data.length), 18);
    local.writeUInt32LE(u32(size), 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(part.zip64 ? 45 : 20, 4);
    central.writeUInt16LE(part.zip64 ? 45 : 20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(u32(data.length), 20);
    central.writeUInt32LE(u32(size), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, extra, data);
    centrals.push(central, name, extra);
    offset += 30 + name.length + extra.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const types = (main: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="${main}"/></Types>`;
const rootRels = (target: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/officeDocument" Target="${target}"/></Relationships>`;

const W_OPEN = '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p>';
const W_CLOSE = '</w:body></w:document>';

/** A .docx whose word/document.xml is `part` (its name is set here). */
export function docxWith(part: Omit<ZipPart, 'name'>): Uint8Array {
  return zipOf([
    { name: '[Content_Types].xml', data: types('/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml') },
    { name: '_rels/.rels', data: rootRels('word/document.xml') },
    { name: 'word/document.xml', ...part },
  ]);
}

/** word/document.xml inflating to `mib` MiB of whitespace between paragraphs. */
export const documentBomb = (mib: number) => deflatedRepeat(SPACES_MIB, mib, W_OPEN, W_CLOSE);

const TINY_PARAGRAPH = '<w:p><w:r><w:t>x</w:t></w:r></w:p>';
/** ~1 MiB of one-letter paragraphs. */
const PARAGRAPHS_MIB = TINY_PARAGRAPH.repeat(Math.floor(MiB / TINY_PARAGRAPH.length));

/**
 * word/document.xml of `mib` MiB of one-letter paragraphs: honest sizes, under the part
 * limits, but every paragraph costs a parser objects (7 MiB took mammoth to ~1.4 GB).
 */
export const denseDocument = (mib: number) => deflatedRepeat(PARAGRAPHS_MIB, mib, W_OPEN, W_CLOSE);

const SHEET_OPEN = '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Hello</t></is></c></row>';
const SHEET_CLOSE = '</sheetData></worksheet>';

/** An .xlsx (one sheet) whose xl/worksheets/sheet1.xml is `part`. */
export function xlsxWith(part: Omit<ZipPart, 'name'>): Uint8Array {
  return zipOf([
    { name: '[Content_Types].xml', data: types('/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml') },
    { name: '_rels/.rels', data: rootRels('xl/workbook.xml') },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${RELS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', ...part },
  ]);
}

/** sheet1.xml inflating to `mib` MiB of whitespace between rows. */
export const sheetBomb = (mib: number) => deflatedRepeat(SPACES_MIB, mib, SHEET_OPEN, SHEET_CLOSE);
/** A valid one-cell sheet1.xml. */
export const SHEET = `${SHEET_OPEN}${SHEET_CLOSE}`;

/** A .pptx whose presentation lists its one slide `times` times; the slide carries `paddingMib` MiB of whitespace. */
export function pptxRepeatingSlide(times: number, paddingMib: number): Uint8Array {
  const ids = Array.from({ length: times }, (_, i) => `<p:sldId id="${256 + i}" r:id="rId1"/>`).join('');
  const slide = deflatedRepeat(
    SPACES_MIB,
    paddingMib,
    '<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Repeated slide</a:t></a:r></a:p></p:txBody></p:sp>',
    '</p:spTree></p:cSld></p:sld>',
  );
  return zipOf([
    { name: 'ppt/presentation.xml', data: `<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst>${ids}</p:sldIdLst></p:presentation>`, deflate: true },
    { name: 'ppt/_rels/presentation.xml.rels', data: '<Relationships><Relationship Id="rId1" Type="t/slide" Target="slides/slide1.xml"/></Relationships>' },
    { name: 'ppt/slides/slide1.xml', deflated: slide },
  ]);
}

/** An EPUB whose spine lists one chapter of `chapterKib` KiB `times` times. */
export function epubRepeatingChapter(times: number, chapterKib: number): Uint8Array {
  const paragraph = '<p>Every page of this chapter says the same few words again.</p>\n';
  const body = paragraph.repeat(Math.ceil((chapterKib * 1024) / paragraph.length));
  const spine = '<itemref idref="c1"/>'.repeat(times);
  return zipOf([
    { name: 'mimetype', data: 'application/epub+zip' },
    {
      name: 'META-INF/container.xml',
      data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    },
    {
      name: 'content.opf',
      data: `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Echo</dc:title></metadata><manifest><item id="c1" href="chapter.xhtml" media-type="application/xhtml+xml"/></manifest><spine>${spine}</spine></package>`,
      deflate: true,
    },
    { name: 'chapter.xhtml', data: `<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>The one chapter</h1>${body}</body></html>`, deflate: true },
  ]);
}

/** A .tar.gz whose gzip inflates to `mib` MiB (of zeros, after one tar header). */
export function gzipBomb(mib: number): Uint8Array {
  const header = Buffer.alloc(10);
  header.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const { raw } = deflatedRepeat('\u0000'.repeat(MiB), mib);
  // The trailer's CRC and size are never reached.
  return new Uint8Array(Buffer.concat([header, raw, Buffer.alloc(8)]));
}
