/**
 * @module test/support/child-read-process
 * Reads one file with one reader, inline, in a process of its own, and prints what happened and
 * the memory it took: a warm-up file is read first (so libraries are loaded), then the process's
 * RSS is taken as the start and its peak RSS (`maxRSS`) after the read. Run by child-read.ts;
 * `root` is the package whose readers are used (this one, or another checkout's, to compare).
 * usage: node --import tsx child-read-process.ts ROOT KIND WARM_FILE FILE NAME
 */
import { readFileSync } from 'node:fs';

const [root, kind, warmPath, path, name] = process.argv.slice(2) as [string, string, string, string, string];
const modules: Record<string, [string, string]> = {
  docx: ['knowledge/readers/bytes/docx.ts', 'DocxReader'],
  excel: ['knowledge/readers/bytes/excel.ts', 'ExcelReader'],
  pptx: ['knowledge/readers/bytes/pptx.ts', 'PptxReader'],
  pdf: ['knowledge/readers/bytes/pdf.ts', 'PdfReader'],
  converter: ['knowledge/readers/bytes/converter.ts', 'ConverterReader'],
};
const [file, className] = modules[kind]!;
const module = (await import(`${root}/src/${file}`)) as Record<string, new (options: object) => { read(input: object, options: object): Promise<{ content: string }[]> }>;
const options: Record<string, unknown> = { offload: 'inline' };
if (kind === 'converter') {
  const settings = (await import(`${root}/src/settings/converter.ts`)) as { NO_TRANSCRIPTION: unknown; DEFAULT_LIMITS: unknown };
  options.settings = { transcription: settings.NO_TRANSCRIPTION, limits: settings.DEFAULT_LIMITS };
}
const reader = new module[className]!(options);
const read = async (at: string, as: string) => {
  const notes: string[] = [];
  try {
    const docs = await reader.read({ data: new Uint8Array(readFileSync(at)), name: as }, { notes });
    return { documents: docs.length, content: docs.map((d) => d.content).join('\n').slice(0, 300), notes };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error), notes };
  }
};
await read(warmPath, `warm-${name}`);
const start = process.memoryUsage().rss;
const result = await read(path, name);
const peak = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify({ ...result, startRss: start, peakRss: peak })}\n`);
process.exit(0);
