/**
 * Real Office and PDF files for reader tests, written by the same libraries people's tools use
 * (exceljs, pptxgenjs, docx, pdfkit), so the readers are tested on what those write rather than
 * on hand-made minimal XML. Nothing binary is committed. (office-fixtures.ts builds the tiniest
 * PDF/DOCX by hand, for tests that need exact bytes.)
 */
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import PdfKitDocument from 'pdfkit';
import PptxModule from 'pptxgenjs';
import { Document, FootnoteReferenceRun, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';

// Under NodeNext, pptxgenjs's types are read as CommonJS (default export under `.default`),
// while the ESM build that Node loads exports the class itself.
const PptxGenJS = PptxModule as unknown as typeof PptxModule.default;

/** An .xlsx written by exceljs after `build` fills the workbook. */
export async function xlsxWorkbook(build: (workbook: ExcelJS.Workbook) => void): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  build(workbook);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

export interface SlideSpec {
  /** Written into the layout's title placeholder, as PowerPoint's "Click to add title". */
  title?: string;
  /** Paragraphs of a body text box. */
  bullets?: string[];
  table?: string[][];
  notes?: string;
}

/** A .pptx written by pptxgenjs: a title placeholder, a text box, a table and notes per slide. */
export async function pptxDeck(slides: readonly SlideSpec[]): Promise<Uint8Array> {
  const pptx = new PptxGenJS();
  pptx.defineSlideMaster({
    title: 'TITLED',
    objects: [{ placeholder: { options: { name: 'heading', type: 'title', x: 0.5, y: 0.2, w: 9, h: 1 }, text: '' } }],
  });
  for (const spec of slides) {
    const slide = pptx.addSlide({ masterName: 'TITLED' });
    if (spec.title) slide.addText(spec.title, { placeholder: 'heading' });
    if (spec.bullets) slide.addText(spec.bullets.map((text) => ({ text, options: { bullet: true, breakLine: true } })), { x: 0.5, y: 1.5, w: 9, h: 2 });
    if (spec.table) slide.addTable(spec.table.map((row) => row.map((text) => ({ text }))), { x: 0.5, y: 3.5, w: 9 });
    if (spec.notes) slide.addNotes(spec.notes);
  }
  return new Uint8Array((await pptx.write({ outputType: 'uint8array' })) as Uint8Array);
}

/** Rewrites the deck's slide list so the slides are shown in `order` (1-based part numbers). */
export async function reorderSlides(deck: Uint8Array, order: readonly number[]): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(deck);
  const rels = await zip.file('ppt/_rels/presentation.xml.rels')!.async('string');
  const presentation = await zip.file('ppt/presentation.xml')!.async('string');
  const relIdOf = (n: number) => new RegExp(`Id="(rId\\d+)"[^>]*Target="slides/slide${n}\\.xml"|Target="slides/slide${n}\\.xml"[^>]*Id="(rId\\d+)"`).exec(rels)!.slice(1).find(Boolean)!;
  const list = order.map((n, i) => `<p:sldId id="${300 + i}" r:id="${relIdOf(n)}"/>`).join('');
  zip.file('ppt/presentation.xml', presentation.replace(/<p:sldIdLst>[\s\S]*?<\/p:sldIdLst>/, `<p:sldIdLst>${list}</p:sldIdLst>`));
  return zip.generateAsync({ type: 'uint8array' });
}

export type DocxBlock = { heading: string; level?: 1 | 2 | 3 } | { paragraph: string; bold?: string; footnote?: string } | { bullet: string } | { table: string[][] };

const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });

/** A .docx written by the docx package: headings, paragraphs (with bold runs and footnotes), bullets, tables. */
export async function docxDocument(blocks: readonly DocxBlock[]): Promise<Uint8Array> {
  const footnotes: Record<number, { children: Paragraph[] }> = {};
  const children = blocks.map((block) => {
    if ('heading' in block) {
      const level = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 }[block.level ?? 1];
      return new Paragraph({ text: block.heading, heading: level });
    }
    if ('bullet' in block) return new Paragraph({ text: block.bullet, bullet: { level: 0 } });
    if ('table' in block) return new Table({ rows: block.table.map((row) => new TableRow({ children: row.map(cell) })) });
    const runs: (TextRun | FootnoteReferenceRun)[] = [new TextRun(block.paragraph)];
    if (block.bold) runs.push(new TextRun({ text: block.bold, bold: true }));
    if (block.footnote) {
      const id = Object.keys(footnotes).length + 1;
      footnotes[id] = { children: [new Paragraph(block.footnote)] };
      runs.push(new FootnoteReferenceRun(id));
    }
    return new Paragraph({ children: runs });
  });
  return new Uint8Array(await Packer.toBuffer(new Document({ footnotes, sections: [{ children }] })));
}

/** A PDF written by pdfkit, one page per entry, each page's paragraphs in order. */
export function pdfDocument(pages: readonly (readonly string[])[]): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const doc = new PdfKitDocument({ autoFirstPage: false, info: { CreationDate: new Date(0) } });
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(parts))));
    doc.on('error', reject);
    for (const paragraphs of pages) {
      doc.addPage();
      for (const text of paragraphs) doc.text(text).moveDown();
    }
    doc.end();
  });
}
