/**
 * Bad files of every family end in a clear typed error (422 naming the file and what was
 * wrong), never a crash, a hang or unbounded memory: broken Office packages, fake PDFs, ragged
 * CSV, malformed and entity-bomb XML, empty markup, captions without a header, gzip bombs,
 * corrupt tar headers, EPUBs without a package, truncated images, legacy and unknown formats,
 * and a conversion that outlives its time limit.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../errors.js';
import { zip } from '../../../../test/support/office-fixtures.js';
import { tarArchive, textImage } from '../../../../test/support/converter-fixtures.js';
import { WorkerPool } from '../../../workers/pool.js';
import { ConverterReader } from './converter.js';
import { DEFAULT_LIMITS, NO_TRANSCRIPTION } from '../../../settings/converter.js';

const pool = new WorkerPool({ size: 2 });
afterAll(() => pool.close());
const settings = { transcription: NO_TRANSCRIPTION, limits: DEFAULT_LIMITS };
const converter = new ConverterReader({ offload: pool, settings });

async function refusal(data: Uint8Array | string, name: string, reader = converter): Promise<RuntimeError> {
  try {
    await reader.read({ data: typeof data === 'string' ? new TextEncoder().encode(data) : data, name });
  } catch (error) {
    if (RuntimeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected "${name}" to be refused`);
}

const CONTENT_TYPES = (main: string) =>
  `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/x.xml" ContentType="${main}"/></Types>`;

describe('ConverterReader refuses bad files clearly', () => {
  it('names the file and the problem for broken or disguised files of each family', async () => {
    const cases: [Uint8Array | string, string, string | RegExp][] = [
      [new Uint8Array(), 'empty.pdf', 'converter reader: "empty.pdf" is empty (0 bytes)'],
      ['just some words', 'report.pdf', 'converter reader: "report.pdf" is named as a PDF, but its content is not one (it is plain text)'],
      ['%PDF-1.7\nthis is not really a pdf', 'fake.pdf', /^converter reader: "fake\.pdf" could not be read as PDF \(/],
      [new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6]), 'cut.docx', /^converter reader: "cut\.docx" could not be read as a zip archive: it is not a valid zip archive/],
      [zip({ 'hello.txt': 'hi' }), 'files.zip.docx', 'converter reader: "files.zip.docx" is a zip archive but neither an Office document nor an EPUB book; only .tar.gz archives are unpacked'],
      [
        zip({ '[Content_Types].xml': CONTENT_TYPES('application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'), 'word/document.xml': '<broken' }),
        'broken.docx',
        /^converter reader: "broken\.docx" /,
      ],
      [
        zip({ '[Content_Types].xml': CONTENT_TYPES('application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml') }),
        'hollow.pptx',
        'converter reader: "hollow.pptx" is not a PowerPoint presentation (it has no ppt/presentation.xml)',
      ],
      [
        zip({ '[Content_Types].xml': CONTENT_TYPES('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml') }),
        'hollow.xlsx',
        'converter reader: "hollow.xlsx" is not an Excel workbook (it has no xl/workbook.xml)',
      ],
      [new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]), 'old.docx', /^converter reader: "old\.docx" is a legacy Office 97-2003 file/],
      ['a,b\n1,2,3\n', 'ragged.csv', /^converter reader: "ragged\.csv" is not valid CSV \(/],
      ['<catalog><book></catalog>', 'bad.xml', /^converter reader: "bad\.xml" is not well-formed XML \(/],
      ['plain words, no markup', 'data.xml', 'converter reader: "data.xml" is named as XML, but it does not start with markup'],
      ['<html><body>   </body></html>', 'blank.html', 'converter reader: "blank.html" has no readable text'],
      ['   \n  ', 'blank.adoc', 'converter reader: "blank.adoc" has no text (an empty AsciiDoc document)'],
      ['\\documentclass{article}\\begin{document}\\end{document}', 'blank.tex', 'converter reader: "blank.tex" has no text (an empty LaTeX document)'],
      ['00:00:01.000 --> 00:00:02.000\nhello', 'captions.vtt', 'converter reader: "captions.vtt" is not WebVTT: a captions file starts with "WEBVTT"'],
      ['WEBVTT\n\nNOTE nothing else', 'silent.vtt', 'converter reader: "silent.vtt" has no captions with text'],
      [new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]), 'cut.tar.gz', /^converter reader: "cut\.tar\.gz" is not a valid gzip file \(/],
      [gzipSync(Buffer.from('this is not a tar archive at all'.repeat(40))), 'notar.tar.gz', 'converter reader: "notar.tar.gz" is not a tar archive (the first header\'s checksum does not match)'],
      [tarArchive([{ path: 'bin.dat', data: new Uint8Array([0, 0, 1, 255]) }]), 'binary.tar.gz', /^converter reader: "binary\.tar\.gz" has no member the converter could read: bin\.dat: "bin\.dat" is not a format/],
      [zip({ mimetype: 'application/epub+zip' }), 'nobook.epub', 'converter reader: "nobook.epub" is not a valid EPUB (META-INF/container.xml names no package document)'],
      [textImage(['cut short'], 'png').slice(0, 60), 'cut.png', /^converter reader: "cut\.png" could not be read as an image/],
      ['GIF89a\u0001\u0000\u0001\u0000', 'anim.gif', 'converter reader: "anim.gif" is a GIF image, which the converter does not read; convert it to PNG and upload that'],
      [new Uint8Array([0, 159, 146, 150, 0, 1, 2, 3]), 'blob.bin', 'converter reader: "blob.bin" is not a format the converter reads (no known file signature, and it is not text)'],
      ['text, really', 'photo.png', 'converter reader: "photo.png" is named as an image, but its content is not one (it is plain text)'],
    ];
    for (const [data, name, expected] of cases) {
      const error = await refusal(data, name);
      expect(error.code, name).toBe('VALIDATION_ERROR');
      // A string is the whole message; a pattern its start.
      const pattern = typeof expected === 'string' ? new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : expected;
      expect(error.message, name).toMatch(pattern);
    }
  });

  it('never expands XML entities (billion laughs) and never reads files named by them', async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY xxe SYSTEM "file:///etc/passwd">]><lolz><a>&lol3;</a><b>&xxe;</b></lolz>`;
    const [doc] = await converter.read({ data: laughs, name: 'lolz.xml' });
    expect(doc!.content).toBe('# lolz\n\n- a: &lol3;\n- b: &xxe;');
  });

  it('refuses archives that inflate past the limit, and stops reading after the member limit', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));
    const small = new ConverterReader({ offload: pool, settings: { ...settings, limits: { ...DEFAULT_LIMITS, archiveMaxBytes: 1024 * 1024, archiveMaxMembers: 2 } } });
    expect((await refusal(bomb, 'bomb.tar.gz', small)).message).toBe('converter reader: "bomb.tar.gz" inflates to more than 1048576 bytes, the most an archive may hold (CONVERTER_ARCHIVE_MAX_BYTES)');
    const many = tarArchive(['a', 'b', 'c', 'd'].map((n) => ({ path: `${n}.md`, data: `# ${n}\n\nMember ${n} text.` })));
    const notes: string[] = [];
    const docs = await small.read({ data: many, name: 'many.tar.gz' }, { notes });
    expect(docs.map((d) => d.meta_data.member)).toEqual(['a.md', 'b.md']);
    expect(notes).toEqual(['the archive has more than 2 entries; the rest were not read']);
    const truncated = tarArchive([{ path: 'a.md', data: 'x'.repeat(5000) }], { gzip: false }).slice(0, 2048);
    expect((await refusal(truncated, 'cut.tar')).message).toBe('converter reader: "cut.tar" is truncated (an entry at byte 0 claims 5000 bytes beyond the end)');
  });

  it('stops a conversion that runs past its time limit with a 422, and the pool carries on', async () => {
    const slow = new ConverterReader({ offload: pool, settings, timeoutMs: 200 });
    // Half a million tiny table rows keep the LaTeX converter busy for longer than 0.2 s.
    const tex = `\\begin{tabular}{ll}\n${'a & b \\\\\n'.repeat(500_000)}\\end{tabular}`;
    const error = await refusal(tex, 'huge.tex', slow);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe('converter reader: "huge.tex" did not finish within 0.2 s and was stopped (the conversion time limit)');
    const [doc] = await converter.read({ data: '# Still here\n\nThe pool recovered.', name: 'after.md' });
    expect(doc!.content).toContain('The pool recovered.');
  });

  it('stops a conversion when the upload is cancelled', async () => {
    const controller = new AbortController();
    const tex = `\\begin{tabular}{ll}\n${'a & b \\\\\n'.repeat(500_000)}\\end{tabular}`;
    const running = converter.read({ data: tex, name: 'cancelled.tex' }, { signal: controller.signal });
    setTimeout(() => controller.abort(new RuntimeError('SERVICE_UNAVAILABLE', 'The runtime is shutting down')), 100);
    await expect(running).rejects.toThrow('The runtime is shutting down');
  });
});
