import { describe, expect, it } from 'vitest';
import { docxDocument } from '../../../../test/support/office-generators.js';
import { zip } from '../../../../test/support/office-fixtures.js';
import { RuntimeError } from '../../../errors.js';
import { DocxReader } from './docx.js';

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

const read = (data: Uint8Array, name: string) => new DocxReader().read({ data, name });

const handbook = () =>
  docxDocument([
    { heading: 'Staff handbook' },
    { paragraph: 'Badges are issued by ', bold: 'the front desk', footnote: 'Open 8:00-18:00.' },
    { heading: 'Holidays', level: 2 },
    { table: [['Region', 'Days | off'], ['North', '25'], ['South', '27']] },
    { bullet: 'Bring a laptop' },
    { paragraph: 'Name files like file_name_v2 *final*.' },
  ]);

describe('DocxReader (tables and headings)', () => {
  it('writes headings, paragraphs, lists and tables as markdown, tables one row per line', async () => {
    const docs = await new DocxReader().read({ data: await handbook(), name: 'hr/handbook.docx' });
    expect(docs).toEqual([
      {
        content: [
          '# Staff handbook',
          'Badges are issued by the front desk[1]',
          '## Holidays',
          '| Region | Days \\| off |\n| --- | --- |\n| North | 25 |\n| South | 27 |',
          '-   Bring a laptop',
          // Text is not markdown-escaped: it is for searching and quoting.
          'Name files like file_name_v2 *final*.',
          '1.  Open 8:00-18:00.',
        ].join('\n\n'),
        name: 'handbook',
        id: 'handbook',
        meta_data: {},
      },
    ]);
  });

  it('claims .doc and reads a .docx named .doc, but refuses a real Word 97-2003 file with advice', async () => {
    expect(new DocxReader().contentTypes).toEqual(expect.arrayContaining(['.docx', '.doc', 'application/msword']));
    const renamed = await new DocxReader().read({ data: await handbook(), name: 'old-name.doc' });
    expect(renamed[0]!.content).toContain('| North | 25 |');
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Uint8Array(504)]);
    const legacy = await refusal(new DocxReader().read({ data: ole, name: 'memo.doc' }));
    expect([legacy.code, legacy.message]).toEqual([
      'VALIDATION_ERROR',
      'docx reader: "memo.doc" is a Word 97-2003 document (.doc), which cannot be read (no maintained library reads that format); open it in Word or LibreOffice, save it as .docx and upload that',
    ]);
  });

  it('refuses a password-protected document with its own advice', async () => {
    const encrypted = new Uint8Array(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504), Buffer.from('EncryptedPackage', 'utf16le')]));
    expect((await refusal(read(encrypted, 'secret.docx'))).message).toBe(
      'docx reader: "secret.docx" is password-protected (encrypted), so its content cannot be read; remove the password and upload it again',
    );
  });

  it('refuses an empty file, garbage, a truncated document and a zip that is no document', async () => {
    expect((await refusal(read(new Uint8Array(), 'e.docx'))).message).toBe('docx reader: "e.docx" is empty (0 bytes)');
    expect((await refusal(read(new TextEncoder().encode('hello'), 'g.docx'))).message).toBe(
      'docx reader: "g.docx" could not be read as DOCX: it is not a Word .docx file (not a zip archive)',
    );
    const data = await handbook();
    const truncated = await refusal(read(data.slice(0, Math.floor(data.length * 0.6)), 't.docx'));
    expect(truncated.message).toContain('"t.docx" could not be read as DOCX: it is not a valid zip archive');
    const other = await refusal(read(zip({ 'a.txt': 'x' }), 'z.docx'));
    expect([other.code, other.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('docx reader: "z.docx" could not be read as DOCX (')]);
  });
});
