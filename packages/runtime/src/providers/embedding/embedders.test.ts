import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEmbeddings, hashEmbedding, type FakeEmbeddings } from '../../../test/support/fake-embeddings.js';
import { ModelError } from '../../model/model.js';
import { embedderFromEnvironment } from '../from-environment.js';
import { OllamaEmbedder } from '../ollama/embeddings.js';
import { OpenAIEmbedder } from '../openai/embeddings.js';

let fake: FakeEmbeddings;
beforeAll(async () => {
  fake = await startFakeEmbeddings({ apiKey: 'sk-test' });
});
afterAll(() => fake.close());

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('OpenAIEmbedder', () => {
  it('embeds in input order over the real wire format, in batches', async () => {
    const embedder = new OpenAIEmbedder({ apiKey: 'sk-test', baseURL: `${fake.url}/v1`, model: 'emb-small', batchSize: 2 });
    const before = fake.requests.length;
    const vectors = await embedder.embed(['postgres vector search', 'sqlite keyword search', 'cats and dogs']);
    expect(vectors).toEqual([hashEmbedding('postgres vector search'), hashEmbedding('sqlite keyword search'), hashEmbedding('cats and dogs')]);
    expect(fake.requests.length - before).toBe(2);
    expect(fake.requests.at(-2)).toMatchObject({ path: '/v1/embeddings', body: { model: 'emb-small', input: ['postgres vector search', 'sqlite keyword search'] } });
    expect(embedder.id).toBe('openai:emb-small');
  });

  it('gives similar texts similar vectors', async () => {
    const embedder = new OpenAIEmbedder({ apiKey: 'sk-test', baseURL: `${fake.url}/v1` });
    const [q, near, far] = await embedder.embed(['vector search in postgres', 'postgres supports vector search with pgvector', 'the cat sat on the mat']);
    expect(cosine(q!, near!)).toBeGreaterThan(cosine(q!, far!));
  });

  it('passes dimensions through and reports a wrong key as a 401 without leaking it', async () => {
    const [v] = await new OpenAIEmbedder({ apiKey: 'sk-test', baseURL: `${fake.url}/v1`, dimensions: 16 }).embed(['x']);
    expect(v).toHaveLength(16);
    const error = await new OpenAIEmbedder({ apiKey: 'sk-wrong', baseURL: `${fake.url}/v1`, maxRetries: 0 }).embed(['x']).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).status).toBe(401);
    expect((error as ModelError).message).not.toContain('sk-wrong');
  });

  it('retries a 5xx and refuses malformed answers with MODEL_BAD_RESPONSE', async () => {
    const embedder = new OpenAIEmbedder({ apiKey: 'sk-test', baseURL: `${fake.url}/v1`, retryBaseDelayMs: 1 });
    fake.script({ kind: 'error', status: 503 });
    expect(await embedder.embed(['a'])).toHaveLength(1);
    fake.script({ kind: 'wrong-count' });
    expect(await embedder.embed(['a', 'b']).catch((e: ModelError) => e.code)).toBe('MODEL_BAD_RESPONSE');
    fake.script({ kind: 'bad-json' });
    expect(await embedder.embed(['a']).catch((e: ModelError) => e.code)).toBe('MODEL_BAD_RESPONSE');
  });
});

describe('OllamaEmbedder', () => {
  it('embeds through /api/embed', async () => {
    const embedder = new OllamaEmbedder({ host: fake.url, model: 'nomic-embed-text' });
    expect(await embedder.embed(['hello world'])).toEqual([hashEmbedding('hello world')]);
    expect(fake.requests.at(-1)).toMatchObject({ path: '/api/embed', body: { model: 'nomic-embed-text', input: ['hello world'] } });
    fake.script({ kind: 'wrong-count' });
    expect(await embedder.embed(['a', 'b']).catch((e: ModelError) => e.code)).toBe('MODEL_BAD_RESPONSE');
  });
});

describe('embedderFromEnvironment', () => {
  it('picks OpenAI, then Ollama, else the local encoder (or none with LOCAL_EMBEDDINGS=false)', () => {
    expect(embedderFromEnvironment({ OPENAI_API_KEY: 'k', OPENAI_EMBEDDING_MODEL: 'm' })?.id).toBe('openai:m');
    expect(embedderFromEnvironment({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' })?.id).toBe('openai:text-embedding-3-small');
    expect(embedderFromEnvironment({ OLLAMA_EMBEDDING_MODEL: 'mxbai', OLLAMA_HOST: ':11434' })?.id).toBe('ollama:mxbai');
    expect(embedderFromEnvironment({ OPENAI_API_KEY: ' ' })?.id).toMatch(/^local:universal-sentence-encoder-lite@/);
    expect(embedderFromEnvironment({ OPENAI_API_KEY: ' ', LOCAL_EMBEDDINGS: 'off' })).toBeUndefined();
  });
});
