import { describe, expect, it } from 'vitest';
import { sentencesOf } from './sentences.js';

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
});
