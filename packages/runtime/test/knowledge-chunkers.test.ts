/**
 * The model-, embedder- and grammar-based chunkers end to end, on SQLite and PostgreSQL:
 * source files uploaded through `POST /knowledge/content` with CodeChunker are split at their
 * definitions and a search finds a function by name; SemanticChunker splits with the knowledge
 * base's embedder (the loopback fake embeddings server); AgenticChunker asks the runtime's
 * default model (the loopback fake LLM). A knowledge base lacking the embedder or model a
 * chunker needs refuses the upload with a 400 that says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIEmbedder } from '../src/providers/openai/embeddings.js';
import { Knowledge } from '../src/knowledge/knowledge.js';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import { openai } from '../src/providers/from-environment.js';
import type { Db } from '../src/storage/db.js';
import { testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from './support/databases.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { settled, upload } from './support/knowledge-content.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const LOOKUPS = [
  'tax_rate', 'discount_rate', 'currency_symbol', 'rounding_mode', 'fiscal_year', 'ledger_code', 'vendor_name', 'payment_terms',
  'credit_limit', 'billing_cycle', 'late_fee', 'invoice_prefix', 'bank_account', 'cost_center', 'approval_level', 'archive_days',
].map(
  (name) => `def lookup_${name}(config):\n    """Returns the configured ${name.replace('_', ' ')}."""\n    value = config.get("${name}")\n    if value is None:\n        raise KeyError("${name} is not configured")\n    return value`,
);

/** A Python module of distinct functions and a class, well over one 2048-character chunk. */
const PYTHON = [
  '"""Billing helpers."""\nfrom decimal import Decimal\n',
  ...LOOKUPS,
  'def compute_invoice_total(lines, tax):\n    """Sums the invoice lines and adds the tax."""\n    subtotal = sum(line.amount * line.quantity for line in lines)\n    return Decimal(subtotal) * (1 + tax)\n',
  'class Ledger:\n    def __init__(self):\n        self.entries = []\n\n    def post(self, entry):\n        self.entries.append(entry)\n\n    def balance(self):\n        return sum(e.amount for e in self.entries)\n',
].join('\n\n');

const TYPESCRIPT = [
  "import { readFile } from 'node:fs/promises';\n",
  ...['Parcel', 'Crate', 'Pallet', 'Envelope', 'Drum', 'Tube', 'Sack', 'Bundle'].map(
    (kind) =>
      `/** Volume of a ${kind.toLowerCase()} in litres. */\nexport function volumeOf${kind}(width: number, height: number, depth: number): number {\n  const litres = (width * height * depth) / 1000;\n  if (litres <= 0) throw new RangeError('${kind} has no volume');\n  return Math.round(litres * 100) / 100;\n}\n`,
  ),
  'export function computeShippingCost(weightKg: number, zone: number): number {\n  const base = 4.5 + zone * 1.25;\n  return Math.round((base + weightKg * 0.8) * 100) / 100;\n}\n',
  'export class Warehouse {\n  private readonly shelves = new Map<string, number>();\n\n  store(sku: string, count: number): void {\n    this.shelves.set(sku, (this.shelves.get(sku) ?? 0) + count);\n  }\n}\n',
].join('\n');

const CATS = [
  'Cats purr; a cat purrs when the cat is calm.',
  'A cat grooms cat fur, as cats and kittens do.',
  'Cats hunt mice; a hungry cat hunts more mice.',
  'Kittens watch the mother cat and copy the cat.',
  'A cat sleeps; cats and kittens sleep all day.',
  'Cats scratch posts; a cat needs a cat post.',
  'Kittens play; cats and kittens chase a cat toy.',
].join(' ');
const DATABASES = [
  'The database stores table rows; database rows live in tables.',
  'A database index finds table rows without a full table scan.',
  'Database transactions commit table rows to the database.',
  'Vacuum cleans dead table rows from the database tables.',
  'The database query planner picks a table scan or an index.',
  'Database replicas copy the table rows of the database.',
  'Database pools reuse connections to the database tables.',
].join(' ');

const PARAGRAPHS = ['Anchors', 'Buoys', 'Compasses', 'Dinghies', 'Engines'].map((w) => `${w} matter at sea. ${w} need care. ${w} wear out after years of salt water.`.padEnd(89, '.'));

let dir: string;
let fakeEmbeddings: FakeEmbeddings;
let fakeLlm: FakeLlm;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-kchunkers-'));
  fakeEmbeddings = await startFakeEmbeddings({ apiKey: 'sk-emb' });
  fakeLlm = await startFakeLlm();
});
afterAll(async () => {
  await fakeEmbeddings?.close();
  await fakeLlm?.close();
  rmSync(dir, { recursive: true, force: true });
});

function openStore(kind: TestDatabaseKind, db: Db | undefined, table: string): VectorStore {
  if (kind.kind === 'sqlite') return new SqliteVectorStore({ path: join(dir, `${table}.db`), table });
  return new PostgresVectorStore({ db: db!, table });
}

interface Hit {
  content: string;
  content_id: string;
  meta_data: Record<string, unknown>;
}

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`code, semantic and agentic chunking over HTTP on ${kind.kind}`, () => {
    let database: TestDatabase | undefined;
    let storeDb: Db | undefined;
    let stores: VectorStore[] = [];
    let rt: StartedRuntime;

    beforeAll(async () => {
      if (kind.kind === 'postgres') {
        database = await kind.create();
        storeDb = database.open();
      }
      stores = [openStore(kind, storeDb, 'kch_code'), openStore(kind, storeDb, 'kch_plain')];
      const embedder = new OpenAIEmbedder({ apiKey: 'sk-emb', baseURL: `${fakeEmbeddings.url}/v1`, model: 'fake-embed', maxRetries: 0 });
      const code = new Knowledge({ id: 'code', store: stores[0]!, embedder });
      const plain = new Knowledge({ id: 'plain', store: stores[1]! });
      // No model on either knowledge base: AgenticChunker gets the runtime's default model.
      const model = openai({ baseURL: `${fakeLlm.url}/v1`, apiKey: 'sk-llm', model: 'fake-chunker', maxRetries: 0, env: {} });
      rt = await startRuntime(kind, { knowledge: [code, plain], model });
    });
    afterAll(async () => {
      await rt?.stop();
      for (const s of stores) await s.close();
      await storeDb?.close();
      await database?.cleanup();
    });

    const search = async (query: string, knowledgeId: string, searchType = 'keyword'): Promise<Hit[]> => {
      const r = await call(rt.url, 'POST', '/knowledge/search', { body: { query, knowledge_id: knowledgeId, search_type: searchType } });
      expect(r.status).toBe(200);
      return r.body.data;
    };

    it('splits uploaded .py and .ts files at definitions, and search finds a function by name', async () => {
      const py = await upload(rt.url, '/knowledge/content?knowledge_id=code', { chunker: 'CodeChunker', file: new Blob([PYTHON], { type: 'text/x-python' }) }, 'billing.py');
      const ts = await upload(rt.url, '/knowledge/content?knowledge_id=code', { chunker: 'CodeChunker', file: new Blob([TYPESCRIPT]) }, 'shipping.ts');
      expect([py.status, ts.status]).toEqual([202, 202]);
      expect((await settled(rt.url, py.body.id, '?knowledge_id=code')).status).toBe('completed');
      expect((await settled(rt.url, ts.body.id, '?knowledge_id=code')).status).toBe('completed');

      const [pyHit] = await search('compute_invoice_total', 'code');
      expect(pyHit).toMatchObject({ content_id: py.body.id, meta_data: { language: 'python', chunk: expect.any(Number) } });
      expect(pyHit!.content).toContain('def compute_invoice_total(lines, tax):\n    """Sums the invoice lines and adds the tax."""');
      expect(pyHit!.content).toContain('return Decimal(subtotal) * (1 + tax)');
      // The chunk's line range points at its lines in the file.
      const pyLines = PYTHON.split('\n');
      const { start_line: pyStart, end_line: pyEnd } = pyHit!.meta_data as { start_line: number; end_line: number };
      expect(pyLines.slice(pyStart - 1, pyEnd).join('\n')).toContain(pyHit!.content);

      for (const searchType of ['keyword', 'hybrid']) {
        const [tsHit] = await search('computeShippingCost', 'code', searchType);
        expect(tsHit, searchType).toMatchObject({ content_id: ts.body.id, meta_data: { language: 'typescript' } });
        expect(tsHit!.content).toContain('export function computeShippingCost(weightKg: number, zone: number): number {');
        expect(tsHit!.content).toContain('return Math.round((base + weightKg * 0.8) * 100) / 100;\n}');
      }

      // The module became several chunks within the default 2048 characters, each function whole.
      const chunks = (await search('lookup configured', 'code')).filter((h) => h.content_id === py.body.id);
      expect(chunks.length).toBeGreaterThan(1);
      for (const hit of chunks) expect(hit.content.length).toBeLessThanOrEqual(2048);
      for (const fn of LOOKUPS) expect(chunks.filter((h) => h.content.includes(fn))).toHaveLength(1);
    });

    it('splits by topic with the knowledge base embedder (SemanticChunker)', async () => {
      const before = fakeEmbeddings.requests.length;
      const r = await call(rt.url, 'POST', '/knowledge/content?knowledge_id=code', { body: { name: 'topics', text_content: `${CATS} ${DATABASES}`, chunker: 'SemanticChunker' } });
      expect(r.status).toBe(202);
      expect((await settled(rt.url, r.body.id, '?knowledge_id=code')).status).toBe('completed');
      // The chunker's sentence windows and then the chunks were embedded.
      expect(fakeEmbeddings.requests.length).toBeGreaterThanOrEqual(before + 2);
      const [cats] = await search('kittens', 'code');
      expect(cats).toMatchObject({ content_id: r.body.id, content: CATS });
      const [db] = await search('vacuum replicas', 'code');
      expect(db).toMatchObject({ content_id: r.body.id, content: DATABASES });
    });

    it("asks the runtime's default model for break points (AgenticChunker)", async () => {
      fakeLlm.requests.length = 0;
      fakeLlm.setBehaviour({ answer: () => '[91]' });
      const r = await call(rt.url, 'POST', '/knowledge/content?knowledge_id=plain', { body: { name: 'sea', text_content: PARAGRAPHS.join('\n\n'), chunker: 'AgenticChunker', chunk_size: 200 } });
      expect(r.status).toBe(202);
      expect((await settled(rt.url, r.body.id, '?knowledge_id=plain')).status).toBe('completed');
      expect(fakeLlm.requests.length).toBeGreaterThan(0);
      expect(fakeLlm.requests[0]!.body).toMatchObject({ model: 'fake-chunker' });
      const [compasses] = await search('Compasses', 'plain');
      expect(compasses!.content).toBe(PARAGRAPHS[2]);
    });

    it('refuses SemanticChunker on a knowledge base without an embedder, naming it', async () => {
      const r = await call(rt.url, 'POST', '/knowledge/content?knowledge_id=plain', { body: { text_content: CATS, chunker: 'SemanticChunker' } });
      expect(r.status).toBe(400);
      expect(r.body.detail).toMatch(/SemanticChunker needs an embedder, and knowledge "plain" has none/);
    });
  });
}

describe('chunkers that need a model', () => {
  it('refuse to run on a knowledge base that has none and no runtime to lend one', async () => {
    const k = new Knowledge({ id: 'lonely', store: new SqliteVectorStore({ path: ':memory:' }) });
    const failure = await k.insert({ text: PARAGRAPHS.join('\n\n'), chunker: 'AgenticChunker' }).catch((e: unknown) => e);
    expect((failure as Error).message).toMatch(/AgenticChunker needs a model, and knowledge "lonely" has none/);
    await k.store.close();
  });
});
