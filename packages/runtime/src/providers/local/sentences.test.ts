import { describe, expect, it } from 'vitest';
import { partsOf, piecesOf, sentencesOf } from './sentences.js';

describe('sentencesOf', () => {
  it('cuts after a sentence’s end and at line breaks, leaving out pieces without a word', () => {
    const page = 'Projects and money\nThe new rainwater cistern holds 12,000 litres. It filled twice!  Was it enough? Yes.\n\n---\n| a | b |\n|---|---|';
    expect(sentencesOf(page)).toEqual(['Projects and money', 'The new rainwater cistern holds 12,000 litres.', 'It filled twice!', 'Was it enough?', 'Yes.', '| a | b |']);
  });

  it('keeps decimals and abbreviations without a following space together, and reads a text with no words whole', () => {
    expect(sentencesOf('It costs 1.750 euros, e.g.the pump')).toEqual(['It costs 1.750 euros, e.g.the pump']);
    expect(sentencesOf('--- ***')).toEqual(['--- ***']);
    expect(sentencesOf(' ')).toEqual([' ']);
  });

  it('packs consecutive sentences into pieces of up to 300 characters, a longer sentence alone', () => {
    const short = 'A short sentence here.';
    const long = `${'word '.repeat(80).trim()}.`;
    expect(piecesOf(`${short} ${short} ${long} ${short}`)).toEqual([`${short} ${short}`, long, short]);
    expect(piecesOf(Array.from({ length: 30 }, () => short).join(' ')).map((p) => p.length)).toEqual([298, 298, 91]);
    expect(piecesOf('one. two.', 5)).toEqual(['one.', 'two.']);
    expect(piecesOf('---')).toEqual(['---']);
  });

  it('cuts a long passage in parts at a line break, else a sentence end, else a space, in the second half of the window', () => {
    expect(partsOf('short', 10)).toEqual(['short']);
    expect(partsOf('aaaa\nbbbbbbbbb cc', 10)).toEqual(['aaaa\nbbbbb', 'bbbb cc']);
    expect(partsOf('aaaaaaa\nbbbbbbbbbbb', 10)).toEqual(['aaaaaaa\n', 'bbbbbbbbbb', 'b']);
    expect(partsOf('aaaa. bbbbbbbbbb', 10)).toEqual(['aaaa. ', 'bbbbbbbbbb']);
    expect(partsOf('aaaaaa. bbbbbbbbbb', 10)).toEqual(['aaaaaa.', ' bbbbbbbbb', 'b']);
    expect(partsOf('aa bbbbbbbbbbbb', 10)).toEqual(['aa bbbbbbb', 'bbbbb']);
    expect(partsOf(`x${' '.repeat(25)}`, 10)).toEqual(['x         ']);
    expect(partsOf(' '.repeat(25), 10)).toEqual([' '.repeat(25)]);
    const parts = partsOf('word '.repeat(1000));
    expect(parts.join('')).toBe('word '.repeat(1000));
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThanOrEqual(2_000);
  });
});
