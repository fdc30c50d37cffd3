import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../../test/support/fake-llm.js';
import { RuntimeError } from '../../errors.js';
import { openai } from '../../providers/from-environment.js';
import { ModelError, type Model } from '../../model/model.js';
import type { Document } from '../types.js';
import { AgenticChunker, fallbackBreak, parseBreaks, snapBreak } from './agentic.js';
import { createChunker } from './registry.js';

const doc = (content: string): Document => ({ content, name: 'guide', id: 'guide', meta_data: {} });

// Six paragraphs of three sentences; each paragraph is 89 characters plus the blank line.
const PARAGRAPHS = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'].map((w) => `${w} starts here. ${w} goes on a little. ${w} ends after this sentence.`.padEnd(89, '!'));
const TEXT = PARAGRAPHS.join('\n\n');

let fake: FakeLlm;
let model: Model;
beforeAll(async () => {
  fake = await startFakeLlm();
  model = openai({ baseURL: `${fake.url}/v1`, apiKey: 'sk-test', model: 'fake-chunker', maxRetries: 0, env: {} });
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setBehaviour({ answer: () => 'no idea' });
});

const userMessages = () => fake.requests.map((r) => (r.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'user')!.content);
const windowOf = (prompt: string) => /<text>([\s\S]*)<\/text>$/.exec(prompt)![1]!;

describe('AgenticChunker', () => {
  it('asks the model for breaks in windows of at most chunk_size, snapping them to paragraphs', async () => {
    // Offsets a little off the paragraph starts (91 and 182) are moved onto them.
    fake.script({ kind: 'text', text: '[88, 185]' }, { kind: 'text', text: '[95]' }, { kind: 'text', text: '[90]' });
    const chunks = await new AgenticChunker({ chunkSize: 200 }).chunk(doc(TEXT), { model });
    // The last two paragraphs (180 characters) fit in one chunk: no window is sent for them.
    expect(chunks.map((c) => c.content)).toEqual([...PARAGRAPHS.slice(0, 4), `${PARAGRAPHS[4]}\n\n${PARAGRAPHS[5]}`]);
    expect(chunks.map((c) => c.id)).toEqual(['guide_1', 'guide_2', 'guide_3', 'guide_4', 'guide_5']);
    const prompts = userMessages();
    expect(prompts).toHaveLength(3);
    for (const prompt of prompts) expect(windowOf(prompt).length).toBeLessThanOrEqual(200);
    // Each window starts where the previous chunk ended.
    expect(windowOf(prompts[1]!).startsWith(PARAGRAPHS[2]!)).toBe(true);
    expect(windowOf(prompts[2]!).startsWith(PARAGRAPHS[3]!)).toBe(true);
    expect(fake.requests[0]!.body).toMatchObject({ model: 'fake-chunker', temperature: 0, messages: [{ role: 'system', content: expect.stringContaining('JSON array') }, { role: 'user' }] });
  });

  it('falls back to the last paragraph or sentence break when the answer is garbage', async () => {
    fake.script({ kind: 'text', text: 'I would split it where the topic changes.' }, { kind: 'text', text: '' });
    const chunks = await new AgenticChunker({ chunkSize: 200 }).chunk(doc(TEXT), { model });
    expect(fake.requests).toHaveLength(2);
    expect(chunks.map((c) => c.content)).toEqual([`${PARAGRAPHS[0]}\n\n${PARAGRAPHS[1]}`, `${PARAGRAPHS[2]}\n\n${PARAGRAPHS[3]}`, `${PARAGRAPHS[4]}\n\n${PARAGRAPHS[5]}`]);
  });

  it('clamps out-of-range offsets, and a break at the window end is not taken mid-sentence', async () => {
    // -7 clamps to 1 and snaps to the first sentence end; 5000 clamps to the window's end,
    // which the fallback replaces with the last paragraph break.
    fake.setBehaviour({ answer: () => 'Breaks: [-7, 5000]' });
    const chunks = await new AgenticChunker({ chunkSize: 200 }).chunk(doc(TEXT), { model });
    expect(chunks[0]!.content).toBe('Alpha starts here.');
    expect(chunks[1]!.content).toBe(PARAGRAPHS[0]!.slice('Alpha starts here. '.length) + '\n\n' + PARAGRAPHS[1]);
    for (const chunk of chunks) expect(chunk.content.length).toBeLessThanOrEqual(200);
    expect(chunks.map((c) => c.content).join(' ').replaceAll(/\s/g, '')).toBe(TEXT.replaceAll(/\s/g, ''));
  });

  it('keeps a document that fits as one chunk without calling the model', async () => {
    const chunks = await new AgenticChunker({ chunkSize: 200 }).chunk(doc(`  ${PARAGRAPHS[0]}\n\n`), { model });
    expect(chunks.map((c) => c.content)).toEqual([PARAGRAPHS[0]]);
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses to run without a model, and lets model errors fail the chunking', async () => {
    let error: unknown;
    try {
      await new AgenticChunker({ chunkSize: 200 }).chunk(doc(TEXT), {});
    } catch (e) {
      error = e;
    }
    expect(RuntimeError.isInstance(error) && error.code).toBe('BAD_REQUEST');
    expect((error as Error).message).toMatch(/AgenticChunker needs a model/);

    fake.script({ kind: 'error', status: 500, message: 'model down' });
    const failure = await new AgenticChunker({ chunkSize: 200 }).chunk(doc(TEXT), { model }).catch((e: unknown) => e);
    expect(ModelError.isInstance(failure) && failure.code).toBe('MODEL_HTTP_ERROR');

    const aborted = new AbortController();
    aborted.abort();
    await expect(new AgenticChunker({ chunkSize: 200 }).chunk(doc(TEXT), { model, signal: aborted.signal })).rejects.toThrow(/abort/i);
  });

  it('uses its own model over the context one, drops a given overlap and adds instructions', async () => {
    fake.setBehaviour({ answer: () => '[91]' });
    const chunker = createChunker('AgenticChunker', { chunkSize: 200, overlap: 50 }) as AgenticChunker;
    expect(chunker.chunkSize).toBe(200);
    const other: Model = { provider: 'x', id: 'x', stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('not this one')) }) }), generate: () => Promise.reject(new Error('not this one')) };
    const chunks = await new AgenticChunker({ chunkSize: 200, model, instructions: 'Keep each step whole.' }).chunk(doc(TEXT), { model: other });
    expect(chunks.map((c) => c.content)).toEqual([...PARAGRAPHS.slice(0, 4), `${PARAGRAPHS[4]}\n\n${PARAGRAPHS[5]}`]);
    expect(userMessages()[0]!.startsWith('Keep each step whole.')).toBe(true);
  });
});

describe('agentic break parsing', () => {
  it('reads a JSON array, else any integers, clamped to [1, max]', () => {
    expect(parseBreaks('[120, 340]', 500)).toEqual([120, 340]);
    expect(parseBreaks('I suggest 120 and then 9999.', 500)).toEqual([120, 500]);
    expect(parseBreaks('Sure: [0, 12.6] (two of 3 options)', 500)).toEqual([1, 13]);
    expect(parseBreaks('nothing useful', 500)).toEqual([]);
  });

  it('snaps to a paragraph, else a sentence end, else a space, within a tolerance', () => {
    const window = `${'a'.repeat(50)}. ${'b'.repeat(50)}\n\n${'c'.repeat(100)} ${'d'.repeat(100)}`;
    expect(snapBreak(window, 100)).toBe(104);
    expect(snapBreak(window, 60)).toBe(52);
    expect(snapBreak(window, 190)).toBe(205);
    expect(snapBreak('x'.repeat(300), 150)).toBe(150);
    expect(fallbackBreak('x'.repeat(30))).toBe(30);
  });
});
