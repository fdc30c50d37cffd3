/**
 * The converter on real files of each family, built in the test, converted in the worker pool:
 * Office (written by docx, pptxgenjs and exceljs, and re-labelled as their template and
 * macro-enabled variants), PDF, CSV, HTML, XHTML, XML (generic, JATS, XBRL), AsciiDoc, LaTeX,
 * WebVTT, EPUB and .tar.gz.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { docxDocument, pdfDocument, pptxDeck, xlsxWorkbook } from '../../../../test/support/office-generators.js';
import { epubBook, relabelOffice, tarArchive } from '../../../../test/support/converter-fixtures.js';
import type { Document } from '../../types.js';
import { WorkerPool } from '../../../workers/pool.js';
import { ConverterReader } from './converter.js';
import { DEFAULT_LIMITS, NO_TRANSCRIPTION } from '../../../settings/converter.js';
import { ReaderRegistry, defaultReaders } from '../registry.js';

const pool = new WorkerPool({ size: 2 });
afterAll(() => pool.close());
const converter = new ConverterReader({ offload: pool, settings: { transcription: NO_TRANSCRIPTION, limits: DEFAULT_LIMITS } });

async function convert(data: Uint8Array | string, name: string, notes?: string[]): Promise<Document[]> {
  return converter.read({ data: typeof data === 'string' ? new TextEncoder().encode(data) : data, name }, { notes });
}

const text = (docs: Document[]) => docs.map((d) => d.content).join('\n\n');

describe('ConverterReader registration', () => {
  it('is registered with the spec id, name, chunkers and every extension of the map, without displacing a format’s own reader', () => {
    const registry = new ReaderRegistry(defaultReaders({}));
    const reader = registry.get('converter');
    expect(reader.name).toBe('ConverterReader');
    expect([...reader.chunkers].sort()).toEqual(['AgenticChunker', 'CodeChunker', 'DocumentChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker']);
    const map = registry.readersForType();
    for (const ext of ['.dotx', '.docm', '.dotm', '.potx', '.ppsx', '.pptm', '.ppsm', '.potm', '.xml', '.nxml', '.xbrl', '.adoc', '.asciidoc', '.asc', '.xlsm', '.tex', '.latex', '.tar.gz', '.vtt', '.png', '.jpeg', '.jpg', '.tiff', '.tif', '.bmp', '.webp', '.wav', '.mp3', '.m4a', '.aac', '.ogg', '.flac', '.mp4', '.avi', '.mov']) {
      expect(map[ext], ext).toEqual(['converter']);
    }
    expect(map['.csv']).toEqual(['csv', 'field_labeled_csv', 'converter']);
    expect(map['.xlsx']).toEqual(['excel', 'converter']);
    expect(map['.docx']).toEqual(['docx', 'converter']);
    // A format's own reader first, as knowledge-spec.ts documents for .pptx and the HTML types.
    expect(map['.pptx']).toEqual(['pptx', 'converter']);
    expect(map['.md']).toEqual(['markdown', 'converter']);
    expect(map['.pdf']).toEqual(['pdf', 'converter']);
    for (const ext of ['.html', '.htm', '.xhtml']) expect(map[ext]).toEqual(['html', 'converter']);
    // By file name a format's own reader still wins; the converter takes what only it reads.
    expect(registry.forFile('deck.pptx').id).toBe('pptx');
    expect(registry.forFile('notes.md').id).toBe('markdown');
    expect(registry.forFile('scan.png').id).toBe('converter');
    expect(registry.forFile('bundle.tar.gz').id).toBe('converter');
    expect(registry.forFile('novel.epub').id).toBe('converter');
    expect(registry.forFile('talk', 'audio/mpeg').id).toBe('converter');
    expect(registry.forFile('plain.txt').id).toBe('text');
  });
});

describe('ConverterReader: Office and PDF', () => {
  it('converts Word documents, and their template and macro-enabled variants, by their content type', async () => {
    const docx = await docxDocument([{ heading: 'Quarterly plan' }, { paragraph: 'The zirconium kettle ships in May.' }, { table: [['Region', 'Sales'], ['North', '120']] }]);
    const [doc] = await convert(docx, 'plan.docx');
    expect(doc!.content).toContain('# Quarterly plan');
    expect(doc!.content).toContain('| Region | Sales |');
    expect(doc!.meta_data.format).toBe('docx');
    for (const [type, format] of [
      ['application/vnd.ms-word.template.macroEnabledTemplate.main+xml', 'dotm'],
      ['application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml', 'dotx'],
      ['application/vnd.ms-word.document.macroEnabled.main+xml', 'docm'],
    ] as const) {
      const variant = await relabelOffice(docx, /application\/vnd\.openxmlformats-officedocument\.wordprocessingml\.document\.main\+xml/, type);
      // Named .docx: the bytes, not the name, decide the format.
      const [converted] = await convert(variant, `plan-${format}.docx`);
      expect(converted!.meta_data.format).toBe(format);
      expect(converted!.content).toContain('zirconium kettle');
    }
  });

  it('converts decks slide by slide with slide headings, including a .ppsx slideshow', async () => {
    const deck = await pptxDeck([{ title: 'Launch', bullets: ['Copper teapot in Lisbon'] }, { title: 'Budget', table: [['Item', 'Cost'], ['Ads', '300']], notes: 'Ask finance' }]);
    const slides = await convert(deck, 'launch.pptx');
    expect(slides.map((d) => d.meta_data.slide)).toEqual([1, 2]);
    expect(slides[0]!.content).toMatch(/^## Slide 1: Launch/);
    expect(slides[1]!.content).toContain('Speaker notes:\nAsk finance');
    expect(slides.every((d) => d.meta_data.format === 'pptx')).toBe(true);
    const show = await relabelOffice(deck, /presentationml\.presentation\.main\+xml/, 'presentationml.slideshow.main+xml');
    const shown = await convert(show, 'launch.ppsx');
    expect(shown[0]!.meta_data.format).toBe('ppsx');
    expect(text(shown)).toContain('Copper teapot in Lisbon');
  });

  it('converts workbooks (and .xlsm) to one markdown table per sheet', async () => {
    const xlsx = await xlsxWorkbook((wb) => {
      const sheet = wb.addWorksheet('Inventory');
      sheet.addRow(['item', 'warehouse', 'count']);
      sheet.addRow(['Zirconium | kettle', 'Rotterdam', 42]);
      wb.addWorksheet('Empty');
    });
    const [sheet, ...rest] = await convert(xlsx, 'stock.xlsx');
    expect(rest).toEqual([]);
    expect(sheet!.content).toBe('## Sheet: Inventory\n\n| item | warehouse | count |\n| --- | --- | --- |\n| Zirconium \\| kettle | Rotterdam | 42 |');
    expect(sheet!.meta_data).toEqual({ format: 'xlsx', sheet: 'Inventory', sheet_index: 1 });
    const xlsm = await relabelOffice(xlsx, /spreadsheetml\.sheet\.main\+xml/, 'application/vnd.ms-excel.sheet.macroEnabled.main+xml'.replace('application/vnd.', 'x'));
    // A content type that is no Office main part is refused by name.
    await expect(convert(xlsm, 'odd.xlsm')).rejects.toThrow('converter reader: "odd.xlsm" is an Office Open XML package of a kind the converter does not read');
    const realXlsm = await relabelOffice(xlsx, /application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet\.main\+xml/, 'application/vnd.ms-excel.sheet.macroEnabled.main+xml');
    const [macro] = await convert(realXlsm, 'stock.xlsm');
    expect(macro!.meta_data.format).toBe('xlsm');
  });

  it('converts CSV to a table, and PDF pages through the pdf reader, page by page', async () => {
    const [csv] = await convert('name,city\n"Doe, Jane",Oslo\n', 'people.csv');
    expect(csv!.content).toBe('| name | city |\n| --- | --- |\n| Doe, Jane | Oslo |');
    const pdf = await pdfDocument([['Page one talks about the molybdenum mine near Narvik.'], ['Page two covers the vanadium smelter at length.']]);
    const pages = await convert(pdf, 'report.pdf');
    expect(pages.map((p) => p.meta_data.page)).toEqual([1, 2]);
    expect(pages[1]!.content).toContain('vanadium smelter');
    expect(pages.every((p) => p.meta_data.format === 'pdf' && p.meta_data.ocr === undefined)).toBe(true);
  });
});

describe('ConverterReader: markup and text formats', () => {
  it('converts HTML and XHTML with the html reader', async () => {
    const [html] = await convert('<html><head><title>Kettles</title></head><body><nav>menu</nav><article><h1>Kettle care</h1><p>Descale the kettle monthly with citric acid, and rinse twice before use.</p></article></body></html>', 'care.htm');
    expect(html!.content).toContain('Descale the kettle monthly');
    expect(html!.content).not.toContain('menu');
    expect(html!.meta_data).toMatchObject({ format: 'html', title: 'Kettles' });
    const xhtml = '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>T</title></head><body><h2>Section</h2><p>Pewter teapots tarnish slowly.</p></body></html>';
    const [x] = await convert(xhtml, 'page.xhtml');
    expect(x!.meta_data.format).toBe('xhtml');
    expect(x!.content).toContain('Pewter teapots tarnish slowly.');
  });

  it('converts generic XML to an outline that keeps the element structure', async () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE catalog [<!ENTITY boom "boom">]><catalog><book id="bk101"><author>Gambardella, Matthew</author><title>XML Developer&apos;s Guide</title><blurb>An <b>in-depth</b> look &boom;</blurb></book></catalog>';
    const [doc] = await convert(xml, 'books.xml');
    expect(doc!.content).toBe("# catalog\n\n## book (id=bk101)\n\n- author: Gambardella, Matthew\n- title: XML Developer's Guide\n\nAn in-depth look &boom;");
    expect(doc!.meta_data).toMatchObject({ format: 'xml', xml_dialect: 'xml' });
  });

  it('converts a JATS article (.nxml): title, authors, abstract, sections, tables, references', async () => {
    const nxml = `<?xml version="1.0"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.2 20190208//EN" "JATS-archivearticle1.dtd">
<article><front><article-meta><title-group><article-title>Tea and sleep</article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>Okafor</surname><given-names>Ada</given-names></name></contrib></contrib-group>
<abstract><p>We studied chamomile infusions.</p></abstract></article-meta></front>
<body><sec><title>Methods</title><p>Participants drank <italic>two</italic> cups.</p>
<sec><title>Dosage</title><table-wrap><label>Table 1</label><caption><p>Cups per day</p></caption><table><tr><th>Group</th><th>Cups</th></tr><tr><td>A</td><td>2</td></tr></table></table-wrap></sec></sec></body>
<back><ref-list><ref><label>1</label><mixed-citation>Smith J. Herbal teas. 2001.</mixed-citation></ref></ref-list></back></article>`;
    const [doc] = await convert(nxml, 'paper.nxml');
    expect(doc!.content).toBe(
      '# Tea and sleep\n\nAuthors: Ada Okafor\n\n## Abstract\n\nWe studied chamomile infusions.\n\n## Methods\n\nParticipants drank two cups.\n\n### Dosage\n\nTable: Table 1 Cups per day\n\n| Group | Cups |\n| --- | --- |\n| A | 2 |\n\n## References\n\n- [1] Smith J. Herbal teas. 2001.',
    );
    expect(doc!.meta_data).toMatchObject({ format: 'xml', xml_dialect: 'jats', title: 'Tea and sleep' });
  });

  it('converts XBRL facts to a table with readable concepts, periods and units', async () => {
    const xbrl = `<?xml version="1.0"?><xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2023" xmlns:iso4217="http://www.xbrl.org/2003/iso4217">
<xbrli:context id="FY23"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000320193</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>2023-01-01</xbrli:startDate><xbrli:endDate>2023-12-31</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="USD"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
<us-gaap:NetIncomeLoss contextRef="FY23" unitRef="USD" decimals="-6">96995000000</us-gaap:NetIncomeLoss></xbrli:xbrl>`;
    const [doc] = await convert(xbrl, 'filing.xbrl');
    expect(doc!.content).toBe(
      '# XBRL facts\n\n| Concept | Value | Period | Entity | Unit |\n| --- | --- | --- | --- | --- |\n| Net Income Loss (us-gaap:NetIncomeLoss) | 96995000000 | 2023-01-01 to 2023-12-31 | 0000320193 | USD |',
    );
  });

  it('converts AsciiDoc with Asciidoctor.js in secure mode: headings, lists, code, tables, no includes', async () => {
    const adoc = `= Field Guide to Teapots
Ada Lovelace

== Brewing

Use *fresh* water.

include::/etc/hostname[]

* first item
** nested item

[source,python]
----
def brew():
    return "tea"
----

|===
| Name | Origin
| Kettle | Rotterdam
|===
`;
    const [doc] = await convert(adoc, 'guide.adoc');
    const content = doc!.content;
    expect(content).toContain('# Field Guide to Teapots');
    expect(content).toContain('## Brewing');
    expect(content).toMatch(/\n- first item\n\n {4}- nested item\n/);
    expect(content).toContain('```python\ndef brew():\n    return "tea"\n```');
    expect(content).toContain('| Name | Origin |\n| --- | --- |\n| Kettle | Rotterdam |');
    // Secure mode: the include is a link, never the file's content.
    expect(content).toContain('/etc/hostname');
    expect(content).not.toContain(readFileSync('/etc/hostname', 'utf8').trim() || '\u0000');
    expect(doc!.meta_data).toEqual({ format: 'asciidoc', title: 'Field Guide to Teapots' });
    // .asc and .asciidoc are AsciiDoc too.
    expect((await convert('== Part\n\nText of the part.', 'x.asc'))[0]!.content).toBe('## Part\n\nText of the part.');
  });

  it('converts LaTeX: sections, environments, tables, math and code kept, commands stripped', async () => {
    const tex = String.raw`\documentclass{article}
\usepackage{amsmath}
\newcommand{\kettle}[1]{\textbf{#1}}
\title{Thermal Behaviour of Kettles\thanks{Funded by tea.}}
\author{Ada Okafor \and Bo Li}
\begin{document}
\maketitle
\begin{abstract}
We measure how fast water boils. % a comment
\end{abstract}
\section{Introduction}\label{sec:intro}
Kettles are \emph{ubiquitous}~\cite{smith01,doe02}; see Section~\ref{sec:intro}.
A second line of the same paragraph.\footnote{Mostly electric.}

\subsection*{Setup}
\begin{itemize}
  \item Copper kettle
  \item[Steel] a steel one
  \begin{enumerate}
    \item nested step
  \end{enumerate}
\end{itemize}
\begin{tabular}{|l|r|}
\hline
Material & Time (s) \\ \hline
Copper & 95 \\
Steel \& glass & 120 \\
\hline
\end{tabular}
\begin{equation}
E = mc^2
\end{equation}
Inline $a^2 + b^2$ math and 50\% more.
\begin{verbatim}
raw \textbf{kept}
\end{verbatim}
\end{document}`;
    const [doc] = await convert(tex, 'kettles.tex');
    expect(doc!.content).toBe(
      [
        '# Thermal Behaviour of Kettles',
        'Authors: Ada Okafor, Bo Li',
        '## Abstract',
        'We measure how fast water boils.',
        '## Introduction',
        'Kettles are ubiquitous [smith01, doe02]; see Section [sec:intro]. A second line of the same paragraph. (Mostly electric.)',
        '### Setup',
        '- Copper kettle\n- **Steel** a steel one\n  1. nested step',
        '| Material | Time (s) |\n| --- | --- |\n| Copper | 95 |\n| Steel & glass | 120 |',
        '$$\nE = mc^2\n$$',
        'Inline $a^2 + b^2$ math and 50% more.',
        '```\nraw \\textbf{kept}\n```',
      ].join('\n\n'),
    );
    expect(doc!.meta_data).toEqual({ format: 'latex', title: 'Thermal Behaviour of Kettles' });
  });

  it('converts WebVTT to timestamped lines with speakers, skipping notes and repeats', async () => {
    const vtt = `WEBVTT - quarterly call

NOTE this is a comment

intro
00:00:01.000 --> 00:00:04.000 align:start
<v Alice>Welcome to the <b>quarterly</b> review.

00:00:04.000 --> 00:00:06.500
<v Alice>Welcome to the <b>quarterly</b> review.

00:01.000 --> 00:07.250
Revenue grew &amp; costs fell.
`;
    const [doc] = await convert(vtt, 'call.vtt');
    expect(doc!.content).toBe('[00:00:01.000 --> 00:00:04.000] Alice: Welcome to the quarterly review.\n[00:00:01.000 --> 00:00:07.250] Revenue grew & costs fell.');
    expect(doc!.meta_data).toEqual({ format: 'vtt', cues: 2, duration_seconds: 7.25 });
  });

  it('reads the real format from the bytes: markdown named .md, HTML named .xml, and text by content', async () => {
    const [md] = await convert('# Notes\n\nPlain *markdown* here.', 'notes.md');
    expect(md!.meta_data.format).toBe('markdown');
    expect(md!.content).toBe('# Notes\n\nPlain *markdown* here.');
    const [html] = await convert('<!DOCTYPE html><html><body><p>Really a web page about samovars and their history.</p></body></html>', 'misnamed.xml');
    expect(html!.meta_data.format).toBe('html');
    const [vtt] = await convert('WEBVTT\n\n00:00.000 --> 00:01.000\nhello', 'captions.txt');
    expect(vtt!.meta_data.format).toBe('vtt');
  });
});

describe('ConverterReader: EPUB and archives', () => {
  it('converts an EPUB chapter by chapter in spine order', async () => {
    const book = await epubBook(
      'The Tea Clipper',
      [
        { file: 'ch2.xhtml', title: 'Chapter Two', body: '<p>The clipper reached Foochow in <em>May</em>.</p>' },
        { file: 'ch1.xhtml', title: 'Chapter One', body: '<p>Captain Reyes loaded oolong.</p><ul><li>chests</li></ul>' },
      ],
      ['ch1.xhtml', 'ch2.xhtml'],
    );
    const chapters = await convert(book, 'clipper.epub');
    expect(chapters.map((c) => [c.meta_data.chapter, c.meta_data.chapter_title])).toEqual([
      [1, 'Chapter One'],
      [2, 'Chapter Two'],
    ]);
    expect(chapters[0]!.content).toBe('# Chapter One\n\nCaptain Reyes loaded oolong.\n\n- chests');
    expect(chapters[1]!.meta_data).toMatchObject({ format: 'epub', title: 'The Tea Clipper' });
  });

  it('converts each member of a .tar.gz by its own format, and notes what it skipped', async () => {
    const docx = await docxDocument([{ paragraph: 'The bergamot shipment cleared customs.' }]);
    const archive = tarArchive([
      { path: 'docs/', type: '5' },
      { path: 'docs/readme.md', data: '# Readme\n\nAssam blends ship weekly.' },
      { path: 'docs/letter.docx', data: docx },
      { path: `docs/${'deep/'.repeat(30)}notes.txt`, data: 'A pax long name member about darjeeling.' },
      { path: '../escape.txt', data: 'should never be read' },
      { path: 'docs/link', type: '2', linkName: '/etc/passwd' },
      { path: 'docs/blob.bin', data: new Uint8Array([0, 1, 2, 3, 254, 255]) },
      { path: 'docs/inner.tar.gz', data: tarArchive([{ path: 'x.md', data: 'x' }]) },
    ]);
    const notes: string[] = [];
    const docs = await convert(archive, 'bundle.tar.gz', notes);
    expect(docs.map((d) => d.meta_data.member)).toEqual(['docs/readme.md', 'docs/letter.docx', `docs/${'deep/'.repeat(30)}notes.txt`]);
    expect(docs.map((d) => d.meta_data.format)).toEqual(['markdown', 'docx', 'text']);
    expect(text(docs)).toContain('bergamot shipment');
    expect(text(docs)).not.toContain('should never be read');
    expect(notes).toEqual([
      '../escape.txt: unsafe path (absolute or outside the archive)',
      'docs/link: not a regular file (tar type "2")',
      'docs/blob.bin: "docs/blob.bin" is not a format the converter reads (no known file signature, and it is not text)',
      'docs/inner.tar.gz: "docs/inner.tar.gz" is an archive inside the archive "bundle.tar.gz"; nested archives are not unpacked',
    ]);
  });

  it('reads an archive GNU tar wrote, when tar is installed', async (context) => {
    let available = true;
    try {
      execFileSync('tar', ['--version'], { stdio: 'ignore' });
    } catch {
      available = false;
    }
    if (!available) context.skip();
    const dir = mkdtempSync(join(tmpdir(), 'svc-conv-tar-'));
    try {
      writeFileSync(join(dir, 'a.md'), '# A\n\nRooibos is caffeine free.');
      writeFileSync(join(dir, `${'b'.repeat(120)}.txt`), 'A long name written by GNU tar about matcha.');
      execFileSync('tar', ['-czf', join(dir, 'out.tar.gz'), '-C', dir, 'a.md', `${'b'.repeat(120)}.txt`]);
      const docs = await convert(new Uint8Array(readFileSync(join(dir, 'out.tar.gz'))), 'out.tar.gz');
      expect(text(docs)).toContain('Rooibos is caffeine free.');
      expect(text(docs)).toContain('about matcha');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
