import { describe, expect, it } from 'vitest';
import { deflatedRepeat, zipOf } from '../../../../test/support/hostile-files.js';
import { RuntimeError } from '../../../errors.js';
import type { ContentLimits } from '../../../settings/content-limits.js';
import { readDirectory, storedZip, ZipArchive } from './zip-archive.js';

const MiB = 1024 * 1024;
const label = { fileName: 'f.zip', readerId: 'test' };
// Small budgets, so each breach costs a few MiB of work.
const limits: ContentLimits = { maxInflatedBytes: 8 * MiB, maxPartBytes: 4 * MiB, maxXmlPartBytes: 2 * MiB };
const open = (data: Uint8Array, l: ContentLimits = limits) => ZipArchive.open(data, l, label);

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

/** 64 MiB of spaces, whatever the header says. */
const bomb = () => deflatedRepeat(' '.repeat(MiB), 64);

describe('readDirectory', () => {
  it('reads sizes of 2 GiB and more as unsigned, not negative', () => {
    const entry = readDirectory(zipOf([{ name: 'a.xml', data: 'x', declaredSize: 0x90000000 }])).get('a.xml')!;
    expect(entry.declaredSize).toBe(0x90000000);
    expect(open(zipOf([{ name: 'a.xml', data: 'x', declaredSize: 0xfffffffe }])).declaredBytes).toBe(0xfffffffe);
  });

  it('takes zip64 sizes from the extra field when the fixed fields are at their maximum', () => {
    const entry = readDirectory(zipOf([{ name: 'a.xml', data: 'hello', zip64: true, declaredSize: 5 * 2 ** 32 }])).get('a.xml')!;
    expect(entry.declaredSize).toBe(5 * 2 ** 32);
    expect(entry.compressedSize).toBe(5);
  });

  it('keeps the last of a repeated name, and leaves folders out', () => {
    const entries = readDirectory(zipOf([{ name: 'a.xml', data: 'first' }, { name: 'dir/', data: '' }, { name: 'a.xml', data: 'second' }]));
    expect([...entries.keys()]).toEqual(['a.xml']);
    expect(entries.get('a.xml')!.declaredSize).toBe(6);
  });

  it('says what is wrong with a file that is not a zip', () => {
    expect(() => readDirectory(new Uint8Array(100))).toThrow('its end of central directory is missing');
  });
});

describe('ZipArchive.read', () => {
  it('stops a part whose header understates its size at the part budget, naming it', async () => {
    const zip = open(zipOf([{ name: 'sheet.xml', deflated: bomb(), declaredSize: 1000 }]));
    const error = await refusal(zip.read('sheet.xml'));
    expect(error.status).toBe(422);
    expect(error.message).toBe('test reader: "f.zip" has a part sheet.xml that inflates past 4 MB (KNOWLEDGE_MAX_PART_MB)');
    // Nothing past the budget was kept or counted.
    expect(zip.inflatedBytes).toBe(0);
  });

  it('stops a part stated at 2 GiB and more at the part budget too', async () => {
    const zip = open(zipOf([{ name: 'sheet.xml', deflated: bomb(), declaredSize: 0x90000000 }]), { ...limits, maxInflatedBytes: 2047 * MiB });
    expect((await refusal(zip.read('sheet.xml'))).message).toContain('(KNOWLEDGE_MAX_PART_MB)');
  });

  it('bounds a part parsed whole by the XML part budget', async () => {
    const zip = open(zipOf([{ name: 'document.xml', deflated: deflatedRepeat(' '.repeat(MiB), 3), declaredSize: 10 }]));
    expect((await refusal(zip.read('document.xml', { xml: true }))).message).toBe('test reader: "f.zip" has an XML part document.xml larger than 2 MB (KNOWLEDGE_MAX_XML_PART_MB)');
    // The same part read as a stream is within the part budget, and then its lying header shows.
    expect((await refusal(zip.read('document.xml'))).message).toBe(
      `test reader: "f.zip" has a damaged part document.xml (it inflates to ${3 * MiB} bytes, not the 10 its zip directory declares)`,
    );
  });

  it('counts every read toward the file budget, a part read again included', async () => {
    const part = deflatedRepeat(' '.repeat(MiB), 3);
    const zip = open(zipOf([{ name: 'slide.xml', deflated: part }]));
    await zip.read('slide.xml');
    await zip.read('slide.xml');
    expect(zip.inflatedBytes).toBe(6 * MiB);
    expect((await refusal(zip.read('slide.xml'))).message).toBe('test reader: "f.zip" inflates past 8 MB (KNOWLEDGE_MAX_INFLATED_MB)');
    expect(zip.inflatedBytes).toBe(6 * MiB);
  });

  it('recount charges a reused reading to the file budget as a fresh read would', async () => {
    const zip = open(zipOf([{ name: 'slide.xml', deflated: deflatedRepeat(' '.repeat(MiB), 3) }]));
    await zip.read('slide.xml');
    zip.recount(3 * MiB);
    expect(zip.inflatedBytes).toBe(6 * MiB);
    expect(() => zip.recount(3 * MiB, { fileName: 'deck.pptx', readerId: 'pptx' })).toThrow('pptx reader: "deck.pptx" inflates past 8 MB (KNOWLEDGE_MAX_INFLATED_MB)');
  });

  it('names the tightest bound: an explicit limit for a part that is never large', async () => {
    const zip = open(zipOf([{ name: '[Content_Types].xml', data: 'x'.repeat(2000), deflate: true }]));
    expect((await refusal(zip.read('[Content_Types].xml', { limit: 1000 }))).message).toBe('test reader: "f.zip" has a damaged part [Content_Types].xml (it inflates to more than 1000 bytes)');
  });

  it('refuses a part that inflates to less than its directory declares, as damaged', async () => {
    const zip = open(zipOf([{ name: 'a.xml', data: 'short', deflate: true, declaredSize: 500 }]));
    expect((await refusal(zip.read('a.xml'))).message).toBe('test reader: "f.zip" has a damaged part a.xml (it inflates to 5 bytes, not the 500 its zip directory declares)');
  });

  it('refuses encrypted parts and unknown methods, and answers undefined for a missing part', async () => {
    const data = Buffer.from(zipOf([{ name: 'a.xml', data: 'hello' }]));
    const central = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const encrypted = Buffer.from(data);
    encrypted.writeUInt16LE(1, central + 8);
    expect((await refusal(open(encrypted).read('a.xml'))).message).toBe('test reader: "f.zip" has a damaged part a.xml (it is encrypted)');
    const bzip2 = Buffer.from(data);
    bzip2.writeUInt16LE(12, central + 10);
    expect((await refusal(open(bzip2).read('a.xml'))).message).toContain('it uses compression method 12, which is not supported');
    expect(await open(data).read('b.xml')).toBeUndefined();
  });

  it('reads stored and deflated parts as they are', async () => {
    const zip = open(zipOf([{ name: 'a.txt', data: 'stored' }, { name: 'b.txt', data: 'deflated '.repeat(100), deflate: true }]));
    expect(Buffer.from((await zip.read('a.txt'))!).toString()).toBe('stored');
    expect(Buffer.from((await zip.read('b.txt'))!).toString()).toBe('deflated '.repeat(100));
    expect(zip.fileNames).toEqual(['a.txt', 'b.txt']);
  });
});

describe('storedZip', () => {
  it('writes parts our reader (and so any zip reader) reads back unchanged', async () => {
    const parts = [
      { name: 'xl/workbook.xml', data: new Uint8Array(Buffer.from('<workbook/>')) },
      { name: 'xl/media/é.png', data: new Uint8Array() },
    ];
    const zip = open(storedZip(parts));
    expect(zip.fileNames).toEqual(['xl/workbook.xml', 'xl/media/é.png']);
    expect(Buffer.from((await zip.read('xl/workbook.xml'))!).toString()).toBe('<workbook/>');
    expect((await zip.read('xl/media/é.png'))!.length).toBe(0);
  });
});
