/**
 * The quickstart's sample corpus, `samples/`: one small file per format, all about the same
 * (made-up) community garden, each with a phrase no other sample uses, so a search shows which
 * file a passage came from. The markdown, CSV and JSON files are committed as they are; the PDF
 * and Office files are written here, by the libraries people's own tools use (pdfkit, docx,
 * exceljs, pptxgenjs), when the quickstart is built (`npm run samples` writes them again), so
 * no binary file is committed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import ExcelJS from 'exceljs';
import PdfKit from 'pdfkit';
import PptxModule from 'pptxgenjs';

// Under NodeNext the type declarations describe a CommonJS module; Node loads the ESM build,
// whose default export is the class itself.
const PptxGenJS = PptxModule as unknown as typeof PptxModule.default;

/** `samples/` sits next to both `src/` and `dist/`, so this resolves from either. */
export const SAMPLES_DIR = fileURLToPath(new URL('../samples/', import.meta.url));

export interface Sample {
  file: string;
  /** The reader that picks it by extension. */
  reader: string;
  /** A phrase only this sample contains: search for it to find the passage. */
  phrase: string;
  /** Written by `writeGeneratedSamples` rather than committed. */
  generated: boolean;
}

export const SAMPLES: readonly Sample[] = [
  { file: 'garden-guide.md', reader: 'markdown', phrase: 'comfrey tea', generated: false },
  { file: 'harvest-log.csv', reader: 'csv', phrase: 'purple kohlrabi', generated: false },
  { file: 'tool-library.json', reader: 'json', phrase: 'brass watering can', generated: false },
  { file: 'annual-report.pdf', reader: 'pdf', phrase: 'rainwater cistern', generated: true },
  { file: 'volunteer-handbook.docx', reader: 'docx', phrase: 'seed swap', generated: true },
  { file: 'planting-plan.xlsx', reader: 'excel', phrase: 'scarlet runner beans', generated: true },
  { file: 'season-review.pptx', reader: 'pptx', phrase: 'pollinator corridor', generated: true },
];

/** A two-page annual report: page 2 holds the cistern. */
function annualReport(): Promise<Buffer> {
  const pages = [
    [
      'Harbor Lane Community Garden: annual report 2025',
      'Membership grew from 41 to 58 plot holders, and the waiting list fell to twelve names.',
      'Volunteers logged 1,320 hours, most of them at the Saturday work mornings.',
    ],
    [
      'Projects and money',
      'The new rainwater cistern behind the shed holds 12,000 litres. It filled twice during the spring storms, so the standpipes were not needed until July.',
      'Plot fees brought in 2,900; the cistern and its pump cost 1,750, half of it paid by a council grant.',
    ],
  ];
  return new Promise((resolve, reject) => {
    // A fixed creation date keeps the file the same from one build to the next.
    const doc = new PdfKit({ autoFirstPage: false, info: { Title: 'Annual report 2025', CreationDate: new Date(Date.UTC(2025, 11, 1)) } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const [title, ...paragraphs] of pages) {
      doc.addPage();
      doc.fontSize(18).text(title!).moveDown();
      doc.fontSize(12);
      for (const paragraph of paragraphs) doc.text(paragraph).moveDown();
    }
    doc.end();
  });
}

const cell = (text: string, bold = false) => new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold })] })] });

/** A handbook with headings, a shift table and a bulleted list. */
async function volunteerHandbook(): Promise<Buffer> {
  const shifts = [
    ['Day', 'Time', 'Lead'],
    ['Saturday', '9:00-12:00', 'Maya'],
    ['Wednesday', '17:00-19:00', 'Idris'],
  ];
  const doc = new Document({
    creator: 'Harbor Lane Community Garden',
    title: 'Volunteer handbook',
    sections: [
      {
        children: [
          new Paragraph({ text: 'Volunteer handbook', heading: HeadingLevel.HEADING_1 }),
          new Paragraph('Thank you for helping at Harbor Lane. This handbook covers shifts, safety and the events we run.'),
          new Paragraph({ text: 'Shifts', heading: HeadingLevel.HEADING_2 }),
          new Table({ rows: shifts.map((row, i) => new TableRow({ children: row.map((text) => cell(text, i === 0)) })) }),
          new Paragraph({ text: 'Events', heading: HeadingLevel.HEADING_2 }),
          new Paragraph(
            'The seed swap opens in the first week of March: bring seeds in labelled envelopes and take home whatever you can grow.',
          ),
          new Paragraph({ text: 'Safety', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Wear gloves when turning the compost.', bullet: { level: 0 } }),
          new Paragraph({ text: 'Report any broken tool to the shed lead.', bullet: { level: 0 } }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

/** A workbook with a sheet per season: bed, crop, sow-by date, notes. */
async function plantingPlan(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Harbor Lane Community Garden';
  workbook.created = new Date(Date.UTC(2025, 11, 1));
  const seasons: [string, [string, string, Date, string][]][] = [
    [
      'Spring',
      [
        ['B1', 'scarlet runner beans', new Date(Date.UTC(2026, 4, 15)), 'canes up by the first of May'],
        ['A3', 'early carrots', new Date(Date.UTC(2026, 3, 1)), 'cover with fleece against carrot fly'],
      ],
    ],
    [
      'Autumn',
      [
        ['A2', 'garlic', new Date(Date.UTC(2026, 9, 31)), 'one clove every fifteen centimetres'],
        ['C2', 'green manure', new Date(Date.UTC(2026, 8, 30)), 'dig in before it flowers'],
      ],
    ],
  ];
  for (const [name, rows] of seasons) {
    const sheet = workbook.addWorksheet(name);
    sheet.columns = [
      { header: 'bed', key: 'bed' },
      { header: 'crop', key: 'crop' },
      { header: 'sow by', key: 'sowBy', style: { numFmt: 'yyyy-mm-dd' } },
      { header: 'notes', key: 'notes' },
    ];
    for (const [bed, crop, sowBy, notes] of rows) sheet.addRow({ bed, crop, sowBy, notes });
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** Three slides with titles, bullets, a table and speaker notes. */
async function seasonReview(): Promise<Buffer> {
  const pptx = new PptxGenJS();
  pptx.title = 'Season review 2025';
  const title = (slide: ReturnType<typeof pptx.addSlide>, text: string) => slide.addText(text, { x: 0.5, y: 0.3, w: 9, h: 0.8, fontSize: 28, bold: true });
  const bullets = (slide: ReturnType<typeof pptx.addSlide>, lines: string[]) =>
    slide.addText(
      lines.map((text) => ({ text, options: { bullet: true, breakLine: true } })),
      { x: 0.5, y: 1.3, w: 9, h: 2 },
    );

  const review = pptx.addSlide();
  title(review, 'Season review 2025');
  bullets(review, ['Membership up from 41 to 58 plot holders', '1,320 volunteer hours', 'Best crop: maincrop potatoes']);

  const next = pptx.addSlide();
  title(next, 'Next year');
  bullets(next, ['Plant a pollinator corridor along the north fence', 'Repair the shed roof before winter']);
  next.addNotes('Ask the council for native hedge plants; the bee team will choose the flowers.');

  const harvest = pptx.addSlide();
  title(harvest, 'Harvest by plot (kg)');
  harvest.addTable(
    [
      ['Plot', 'Crop', 'kg'],
      ['B3', 'maincrop potatoes', '21.5'],
      ['A2', 'pumpkins', '17.0'],
    ].map((row) => row.map((text) => ({ text }))),
    { x: 0.5, y: 1.3, w: 9 },
  );
  return Buffer.from((await pptx.write({ outputType: 'nodebuffer' })) as Buffer);
}

const WRITERS: Readonly<Record<string, () => Promise<Buffer>>> = {
  'annual-report.pdf': annualReport,
  'volunteer-handbook.docx': volunteerHandbook,
  'planting-plan.xlsx': plantingPlan,
  'season-review.pptx': seasonReview,
};

/** Writes the PDF and Office samples into `dir`; returns their paths. */
export async function writeGeneratedSamples(dir: string = SAMPLES_DIR): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const sample of SAMPLES.filter((s) => s.generated)) {
    const write = WRITERS[sample.file];
    if (!write) throw new Error(`no writer for sample ${sample.file}`);
    const path = join(dir, sample.file);
    await writeFile(path, await write());
    written.push(path);
  }
  return written;
}
