/**
 * @module knowledge/readers/bytes/budgets.test
 * The text readers in the worker pool: the same documents as inline for valid input, and the
 * budgets (documents, characters, nesting) refused as they read, with messages naming the limit
 * and its variable. HTML nesting is measured by the tokenizer linkedom builds with, so implied
 * and void elements do not count as depth.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { csvRows, jsonArray, nestedHtml, nestedJson } from '../../../../test/support/hostile-inputs.js';
import { RuntimeError } from '../../../errors.js';
import { WorkerPool } from '../../../workers/pool.js';
import { INGEST_LIMIT_DEFAULTS, type ReadLimits } from '../../limits.js';
import type { Reader } from '../reader.js';
import { CsvReader } from './csv.js';
import { FieldLabeledCsvReader } from './field-labeled-csv.js';
import { HtmlReader, checkNesting } from './html.js';
import { JsonReader, measure } from './json.js';
import { MarkdownReader } from './markdown.js';
import { INLINE_MAX_BYTES } from './offloaded.js';
import { TextReader } from './text.js';

const pool = new WorkerPool({ size: 1 });
afterAll(() => pool.close());

const limits: ReadLimits = { maxDocuments: INGEST_LIMIT_DEFAULTS.maxDocuments, maxCharacters: INGEST_LIMIT_DEFAULTS.maxCharacters, maxDepth: INGEST_LIMIT_DEFAULTS.maxDepth };
const bytes = (text: string) => new TextEncoder().encode(text);

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RuntimeError.isInstance(error)) throw new Error(`expected a RuntimeError, got ${String(error)}`);
  return error;
}

describe('text readers in the worker pool', () => {
  const big = INLINE_MAX_BYTES + 1000;
  const cases: [string, (offload: WorkerPool | 'inline') => Reader, string][] = [
    ['json', (offload) => new JsonReader({ offload }), jsonArray(Math.ceil(big / 25))],
    ['csv', (offload) => new CsvReader({ offload, delimiter: ';' }), csvRows(Math.ceil(big / 15)).replaceAll(',', ';')],
    ['field_labeled_csv', (offload) => new FieldLabeledCsvReader({ offload, chunkTitle: ['A', 'B'] }), csvRows(Math.ceil(big / 15))],
    ['markdown', (offload) => new MarkdownReader({ offload }), `# Title\n\n${'Some words. '.repeat(big / 12)}`],
    ['text', (offload) => new TextReader({ offload }), `\ufeff${'plain text '.repeat(big / 11)}`],
    ['html', (offload) => new HtmlReader({ offload }), `<html><head><title>T</title></head><body><article><h1>H</h1>${'<p>Words about kettles and tea.</p>'.repeat(big / 34)}</article></body></html>`],
  ];

  for (const [id, make, text] of cases) {
    it(`${id}: the same documents as inline`, async () => {
      const input = { data: bytes(text), name: `big.${id}` };
      const inline = await make('inline').read(input, { limits });
      const pooled = await make(pool).read(input, { limits });
      expect(pooled).toStrictEqual(inline);
      expect(inline.length).toBeGreaterThan(0);
    });
  }

  it('reads small inputs and text given as a string on the calling thread', async () => {
    const before = pool.started;
    await new JsonReader({ offload: pool }).read({ data: '[1, 2]', name: 'small.json' });
    await new TextReader({ offload: pool }).read({ data: 'x'.repeat(INLINE_MAX_BYTES * 2), name: 'given.txt' });
    expect(pool.stats().busy).toBe(0);
    expect(pool.started).toBe(before);
  });
});

describe('HTML nesting', () => {
  it('refuses a page nested deeper than the limit at once, before building a DOM', async () => {
    const started = performance.now();
    for (const offload of ['inline', pool] as const) {
      const error = await refusal(new HtmlReader({ offload }).read({ data: nestedHtml(2000), name: 'nested.html' }, { limits }));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toBe('"nested.html" nests elements more than 256 levels deep (KNOWLEDGE_MAX_DEPTH)');
    }
    const deep = await refusal(new HtmlReader({ offload: 'inline' }).read({ data: nestedHtml(100_000), name: 'deep.html' }));
    expect(deep.message).toBe('"deep.html" nests elements more than 256 levels deep (KNOWLEDGE_MAX_DEPTH)');
    // linkedom, Readability and turndown took 30-60 s on the first of these, 160 s on the last.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('reads a page as deep as the limit', async () => {
    const [doc] = await new HtmlReader({ offload: 'inline' }).read({ data: nestedHtml(250), name: 'ok.html' }, { limits });
    expect(doc!.content).toBe('hello world');
  });

  it('counts elements as the parser nests them: implied ends and void elements add no depth', () => {
    expect(() => checkNesting(`<ul>${'<li>item'.repeat(1000)}</ul>${'<p>para'.repeat(1000)}${'<br><img src=x>'.repeat(1000)}`, 'flat.html', 16)).not.toThrow();
    expect(() => checkNesting('<div><div><div><div>x</div></div></div></div>', 'four.html', 3)).toThrow('"four.html" nests elements more than 3 levels deep (KNOWLEDGE_MAX_DEPTH)');
    expect(() => checkNesting('<div><div><div>x</div></div></div>', 'three.html', 3)).not.toThrow();
  });

  it("answers a page's same-host links when a crawl asks, inline and in the pool", async () => {
    const page = '<html><body><a href="/b?utm_source=x">b</a><a href="https://elsewhere.org/">x</a><a href="c#top" rel="nofollow">c</a><a href="d">d</a><p>Text enough to read.</p></body></html>';
    for (const offload of ['inline', pool] as const) {
      const links = { pageUrl: 'http://site.test/a/' };
      await new HtmlReader({ offload }).read({ data: page, name: 'a.html' }, { links });
      expect(links).toEqual({ pageUrl: 'http://site.test/a/', found: ['http://site.test/b', 'http://site.test/a/d'] });
    }
  });
});

describe('JSON budgets', () => {
  it('measures nesting and a top-level array in one pass, ignoring brackets in strings', () => {
    expect(measure('[1, {"a": [2, 3]}, "x,]", []]', 'a.json', 8)).toBe(4);
    expect(measure('[ ]', 'a.json', 8)).toBe(0);
    expect(measure('{"a": [1, 2]}', 'a.json', 8)).toBe(1);
    expect(measure('"a \\" [[[["', 'a.json', 2)).toBe(1);
    expect(() => measure('[[[1]]]', 'deep.json', 2)).toThrow('"deep.json" nests values more than 2 levels deep (KNOWLEDGE_MAX_DEPTH)');
  });

  it('refuses JSON nested 100,000 deep at once, inline and in the pool', async () => {
    for (const offload of ['inline', pool] as const) {
      const error = await refusal(new JsonReader({ offload }).read({ data: bytes(nestedJson(100_000)), name: 'deep.json' }, { limits }));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toBe('"deep.json" nests values more than 256 levels deep (KNOWLEDGE_MAX_DEPTH)');
    }
  });

  it('refuses an array of more elements than the document limit before parsing it', async () => {
    const error = await refusal(new JsonReader({ offload: pool }).read({ data: bytes(jsonArray(1_000_000)), name: 'items.json' }, { limits }));
    expect(error.message).toBe('"items.json" makes more than 100000 documents (KNOWLEDGE_MAX_DOCUMENTS)');
  });

  it('refuses more characters than the limit as it writes the documents', async () => {
    const error = await refusal(new JsonReader({ offload: 'inline' }).read({ data: jsonArray(100), name: 'items.json' }, { limits: { ...limits, maxCharacters: 500 } }));
    expect(error.message).toBe('"items.json" makes more than 500 characters of text (KNOWLEDGE_MAX_CHARACTERS)');
  });
});

describe('CSV and text budgets', () => {
  it('stops a labelled CSV at the first row past the document limit', async () => {
    const small = { ...limits, maxDocuments: 1000 };
    expect(await new FieldLabeledCsvReader({ offload: 'inline' }).read({ data: csvRows(1000), name: 'rows.csv' }, { limits: small })).toHaveLength(1000);
    for (const offload of ['inline', pool] as const) {
      const error = await refusal(new FieldLabeledCsvReader({ offload }).read({ data: bytes(csvRows(100_000)), name: 'rows.csv' }, { limits: small }));
      expect(error.message).toBe('"rows.csv" makes more than 1000 documents (KNOWLEDGE_MAX_DOCUMENTS)');
    }
  });

  it('refuses text longer than the character limit', async () => {
    const tight = { ...limits, maxCharacters: 1000 };
    for (const reader of [new TextReader({ offload: pool }), new MarkdownReader({ offload: pool }), new CsvReader({ offload: pool })]) {
      const error = await refusal(reader.read({ data: bytes(csvRows(10_000)), name: 'long.txt' }, { limits: tight }));
      expect(error.message).toBe('"long.txt" makes more than 1000 characters of text (KNOWLEDGE_MAX_CHARACTERS)');
    }
  });
});
