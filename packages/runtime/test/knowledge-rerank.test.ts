/**
 * Reranking after fusion, against loopback servers speaking Cohere's and TEI's rerank APIs,
 * and the similarity threshold. The reranker here prefers passages that mention "otter".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { CohereReranker } from '../src/providers/cohere/rerank.js';
import { rerankerFromEnvironment } from '../src/providers/from-environment.js';
import { TeiReranker } from '../src/providers/tei/rerank.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';

type Json = Record<string, any>;

const score = (text: string) => (text.includes('otter') ? 0.9 : 0.1);

interface FakeRerank {
  url: string;
  requests: { path: string; headers: Record<string, unknown>; body: Json }[];
  close(): Promise<void>;
}

/** Answers `/v2/rerank` as Cohere does and `/tei/rerank` as TEI does, from the same scores. */
async function startFakeRerank(): Promise<FakeRerank> {
  const requests: FakeRerank['requests'] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Json;
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v2/rerank') {
        const results = (body.documents as string[])
          .map((d, index) => ({ index, relevance_score: score(d) }))
          .sort((a, b) => b.relevance_score - a.relevance_score)
          .slice(0, body.top_n as number);
        res.end(JSON.stringify({ id: 'r1', results, meta: { billed_units: { search_units: 1 } } }));
      } else if (req.url === '/tei/rerank') {
        res.end(JSON.stringify((body.texts as string[]).map((t, index) => ({ index, score: score(t) }))));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

const PASSAGES = [
  'Beavers build dams across rivers and streams with branches.',
  'Rivers carry sediment downstream; beavers slow them with dams.',
  'The sea otter floats on its back near rivers and the coast.',
];

describe('reranking and the similarity threshold', () => {
  let fake: FakeRerank;
  const bases: Knowledge[] = [];
  const base = async (reranker?: ConstructorParameters<typeof Knowledge>[0]['reranker']) => {
    const k = new Knowledge({ id: `k${bases.length}`, store: new SqliteVectorStore({ path: ':memory:', table: `rr${bases.length}` }), reranker });
    bases.push(k);
    for (const [i, text] of PASSAGES.entries()) await k.insert({ text, name: `p${i}.txt` });
    return k;
  };

  beforeAll(async () => {
    fake = await startFakeRerank();
  });
  afterAll(async () => {
    for (const k of bases) await k.store.close();
    await fake?.close();
  });

  it('a Cohere-compatible reranker reorders the candidates and its scores are reported', async () => {
    const plain = await base();
    const before = await plain.search('beavers rivers dams', { limit: 2 });
    expect(before.map((h) => h.content)).not.toContain(PASSAGES[2]);

    const reranked = await base(new CohereReranker({ baseURL: `${fake.url}/v2`, apiKey: 'rk-test', model: 'rerank-test' }));
    const hits = await reranked.search('beavers rivers dams', { limit: 2 });
    expect(hits[0]).toMatchObject({ content: PASSAGES[2], score: 0.9 });
    expect(hits).toHaveLength(2);
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer rk-test');
    // It chose from three times as many candidates as it returned.
    expect(sent.body).toMatchObject({ model: 'rerank-test', query: 'beavers rivers dams', top_n: 2 });
    expect(sent.body.documents).toHaveLength(3);
    // rerank: false skips it for one search.
    const skipped = await reranked.search('beavers rivers dams', { limit: 2, rerank: false });
    expect(skipped.map((h) => h.content)).toEqual(before.map((h) => h.content));
  });

  it('a TEI server reranks the same way, and the threshold drops low scores', async () => {
    const k = await base(new TeiReranker({ baseURL: `${fake.url}/tei` }));
    const hits = await k.search('beavers rivers dams', { limit: 3, similarityThreshold: 0.5 });
    expect(hits.map((h) => h.content)).toEqual([PASSAGES[2]]);
    expect(fake.requests.at(-1)).toMatchObject({ path: '/tei/rerank', body: { query: 'beavers rivers dams', truncate: true } });
    await expect(k.search('x', { similarityThreshold: 2 })).rejects.toThrow(/similarity_threshold must be a number from 0 to 1/);
  });

  it('is configured from the environment, and a bad setting fails naming it', () => {
    expect(rerankerFromEnvironment({})).toBeUndefined();
    expect(rerankerFromEnvironment({ RERANK_PROVIDER: 'cohere', RERANK_API_KEY: 'k', RERANK_MODEL: 'm' })?.id).toBe('cohere:m');
    expect(rerankerFromEnvironment({ RERANK_PROVIDER: 'tei', RERANK_BASE_URL: 'http://reranker:8080' })?.id).toBe('tei:reranker:8080');
    expect(() => rerankerFromEnvironment({ RERANK_PROVIDER: 'tei' })).toThrow(/needs RERANK_BASE_URL/);
    expect(() => rerankerFromEnvironment({ RERANK_PROVIDER: 'magic' })).toThrow(/RERANK_PROVIDER must be cohere, jina or tei/);
  });
});
