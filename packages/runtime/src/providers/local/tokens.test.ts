import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultModelDir } from './sentence-encoder.js';
import { encodeInSegments } from './tokens.js';

// The library's own tokenizer over the shipped vocabulary, without the model's weights.
const require = createRequire(import.meta.url);
const { EmbeddingsModel } = require('@energetic-ai/embeddings') as { EmbeddingsModel: new (data: { vocabulary: unknown; model: unknown }) => { tokenizer: { encode(text: string): number[] } } };
const vocabulary = JSON.parse(readFileSync(join(defaultModelDir(), 'vocab.json'), 'utf8')) as unknown;
const tokenizer = new EmbeddingsModel({ vocabulary, model: undefined }).tokenizer;
const whole = (text: string) => tokenizer.encode(text);

const guide = readFileSync(new URL('../../../../../examples/quickstart/samples/garden-guide.md', import.meta.url), 'utf8');

describe('encodeInSegments', () => {
  it('gives the tokens of the whole text, cut at spaces into short pieces', () => {
    const texts = [
      guide,
      `${guide}\n\n${guide}`,
      '  leading spaces,  doubled  spaces and a trailing one ',
      `no\u00a0break\u00a0spaces, which NFKC turns into spaces: ${'word '.repeat(120)}`,
      `${' '.repeat(40)}${'indented words '.repeat(60)}${' '.repeat(40)}`,
      `unknown symbols ${'☃☃ '.repeat(150)} between words`,
    ];
    for (const text of texts) {
      expect(encodeInSegments(text, whole, 64), text.slice(0, 40)).toEqual(whole(text));
      expect(encodeInSegments(text, whole), text.slice(0, 40)).toEqual(whole(text));
    }
    // Short texts go whole.
    expect(encodeInSegments('how do I collect rain water', whole)).toEqual(whole('how do I collect rain water'));
  });

  it('cuts a run without spaces where it reaches the limit, never inside a surrogate pair', () => {
    const run = `${'x'.repeat(63)}😀${'y'.repeat(200)}`;
    const tokens = encodeInSegments(run, whole, 64);
    expect(tokens.length).toBeGreaterThan(0);
    // The emoji stays one symbol: a cut between its halves would make two unknown pieces of it.
    const cutBefore = encodeInSegments(run, (piece) => [piece.length], 64);
    expect(cutBefore[0]).toBe(63);
  });

  it('takes linear time: 40,000 characters in well under the seconds the whole text takes', () => {
    const long = `${guide} `.repeat(Math.ceil(40_000 / guide.length)).slice(0, 40_000);
    const start = performance.now();
    const tokens = encodeInSegments(long, whole);
    // Whole, the library takes ~10 s here (it copies the rest of the text at every character).
    expect(performance.now() - start).toBeLessThan(2_000);
    expect(tokens.length).toBeGreaterThan(5_000);
  });
});
