import { describe, expect, it } from 'vitest';
import { pptxDeck, reorderSlides } from '../../../../test/support/office-generators.js';
import { zip } from '../../../../test/support/office-fixtures.js';
import { pptxRepeatingSlide } from '../../../../test/support/hostile-files.js';
import { RuntimeError } from '../../../errors.js';
import { PptxReader } from './pptx.js';

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

const read = (data: Uint8Array | string, name = 'deck.pptx') => new PptxReader().read({ data, name });

describe('PptxReader', () => {
  it('reads one document per slide: title, text, tables and labelled speaker notes', async () => {
    const deck = await pptxDeck([
      { title: 'Quarterly results', bullets: ['Revenue grew 12%', 'Costs stayed flat'], notes: 'Mention the Lisbon office opening.' },
      { title: 'By region', table: [['Region', 'Sales'], ['North', '120'], ['South', '80']] },
      {},
      { bullets: ['Thanks & questions?'] },
    ]);
    const docs = await read(deck, 'talks/q3.pptx');
    expect(docs).toEqual([
      {
        content: 'Slide 1: Quarterly results\n\nRevenue grew 12%\nCosts stayed flat\n\nSpeaker notes:\nMention the Lisbon office opening.',
        name: 'q3',
        id: 'q3_1',
        meta_data: { slide: 1 },
      },
      { content: 'Slide 2: By region\n\nRegion | Sales\nNorth | 120\nSouth | 80', name: 'q3', id: 'q3_2', meta_data: { slide: 2 } },
      // Slide 3 has no text and is skipped; slide 4 keeps its number.
      { content: 'Slide 4\n\nThanks & questions?', name: 'q3', id: 'q3_4', meta_data: { slide: 4 } },
    ]);
  });

  it('numbers slides in presentation order, not by part name', async () => {
    const deck = await reorderSlides(await pptxDeck([{ title: 'Alpha' }, { title: 'Beta' }, { title: 'Gamma' }]), [3, 1, 2]);
    const docs = await read(deck);
    expect(docs.map((d) => [d.meta_data.slide, d.content])).toEqual([
      [1, 'Slide 1: Gamma'],
      [2, 'Slide 2: Alpha'],
      [3, 'Slide 3: Beta'],
    ]);
  });

  it('is paged by slide, so the Knowledge chunks a deck as one text', () => {
    expect(new PptxReader().pagedBy).toBe('slide');
    expect(new PptxReader().chunkers[0]).toBe('DocumentChunker');
  });

  it('refuses an empty file, text input, garbage, a truncated deck and a zip that is no deck', async () => {
    const empty = await refusal(read(new Uint8Array(), 'empty.pptx'));
    expect([empty.code, empty.message]).toEqual(['VALIDATION_ERROR', 'pptx reader: "empty.pptx" is empty (0 bytes)']);
    expect((await refusal(read('Slide 1', 'text.pptx'))).message).toContain('must be given as file bytes');
    const garbage = await refusal(read(new TextEncoder().encode('definitely not a deck'), 'junk.pptx'));
    expect(garbage.message).toBe('pptx reader: "junk.pptx" is not a PowerPoint .pptx file (it is not a zip archive)');
    const deck = await pptxDeck([{ title: 'Whole' }]);
    const truncated = await refusal(read(deck.slice(0, Math.floor(deck.length / 2)), 'cut.pptx'));
    expect([truncated.code, truncated.message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('"cut.pptx" could not be read as PPTX: it is not a valid zip archive')]);
    const notDeck = await refusal(read(zip({ 'word/document.xml': '<w:document/>' }), 'word.pptx'));
    expect(notDeck.message).toBe('pptx reader: "word.pptx" is not a PowerPoint presentation (it has no ppt/presentation.xml)');
  });

  it('refuses a zip whose directory says it inflates beyond the limit, before inflating anything', async () => {
    const bomb = Buffer.from(zip({ 'ppt/presentation.xml': '<p:presentation/>' }));
    // The central directory entry's uncompressed size (offset 24), claimed to be 300 MiB.
    bomb.writeUInt32LE(300 * 1024 * 1024, bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24);
    const error = await refusal(read(new Uint8Array(bomb), 'bomb.pptx'));
    expect(error.message).toBe(`pptx reader: "bomb.pptx" would inflate to ${300 * 1024 * 1024} bytes, more than the 256 MB allowed (KNOWLEDGE_MAX_INFLATED_MB)`);
  });

  it('writes a slide listed again under each number, and counts its bytes each time', async () => {
    const docs = await new PptxReader({ offload: 'inline' }).read({ data: pptxRepeatingSlide(3, 0), name: 'echo.pptx' });
    expect(docs.map((d) => [d.id, d.content])).toEqual([
      ['echo_1', 'Slide 1\n\nRepeated slide'],
      ['echo_2', 'Slide 2\n\nRepeated slide'],
      ['echo_3', 'Slide 3\n\nRepeated slide'],
    ]);
    // Five listings of a 1 MiB slide pass 4 MB: parsed once, the slide is still counted five times.
    const limits = { maxInflatedBytes: 4 * 1024 * 1024, maxPartBytes: 2 * 1024 * 1024, maxXmlPartBytes: 2 * 1024 * 1024 };
    const error = await refusal(new PptxReader({ offload: 'inline', limits }).read({ data: pptxRepeatingSlide(5, 1), name: 'echo.pptx' }));
    expect(error.message).toBe('pptx reader: "echo.pptx" inflates past 4 MB (KNOWLEDGE_MAX_INFLATED_MB)');
  });

  it('refuses a deck without text, a legacy .ppt, a broken part and XML with a DTD', async () => {
    const blank = await refusal(read(await pptxDeck([{}, {}]), 'blank.pptx'));
    expect(blank.message).toBe('pptx reader: "blank.pptx" has 2 slide(s) but no text on any of them (pictures are not read)');
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    expect((await refusal(read(ole, 'old.pptx'))).message).toContain('is a PowerPoint 97-2003 (.ppt) file, which cannot be read; save it as .pptx');
    const presentation = '<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>';
    const rels = '<Relationships><Relationship Id="rId1" Type="t/slide" Target="slides/slide1.xml"/></Relationships>';
    const broken = zip({ 'ppt/presentation.xml': presentation, 'ppt/_rels/presentation.xml.rels': rels, 'ppt/slides/slide1.xml': '<p:sld><p:cSld><p:spTree>' });
    expect((await refusal(read(broken, 'broken.pptx'))).message).toMatch(/^pptx reader: "broken\.pptx" has an unreadable part ppt\/slides\/slide1\.xml \(malformed XML/);
    const entity = zip({ 'ppt/presentation.xml': `<!DOCTYPE x [<!ENTITY a "aaaa">]>${presentation}` });
    expect((await refusal(read(entity, 'dtd.pptx'))).message).toContain('XML with a DTD is not accepted');
    const missing = zip({ 'ppt/presentation.xml': presentation, 'ppt/_rels/presentation.xml.rels': rels });
    expect((await refusal(read(missing, 'missing.pptx'))).message).toBe('pptx reader: "missing.pptx" lists slide 1 at ppt/slides/slide1.xml, which is missing');
  });
});
