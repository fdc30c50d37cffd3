import { describe, expect, it } from 'vitest';
import type { Chunk, Document } from '../types.js';
import { CodeChunker, splitCode } from './code.js';
import { detectLanguage, grammarPath, languageForFileName, loadGrammar, normalizeLanguage } from './code-languages.js';
import { createChunker } from './registry.js';

const doc = (content: string, extra: Partial<Document> = {}): Document => ({ content, name: 'src', id: 'src', meta_data: {}, ...extra });

/** The lines of `text` a chunk says it spans, without the leading blank lines and trailing whitespace it drops. */
function linesOf(text: string, chunk: Chunk): string {
  const lines = text.split('\n').slice((chunk.meta_data.start_line as number) - 1, chunk.meta_data.end_line as number);
  return lines.join('\n').trimEnd();
}

const PYTHON = `"""Inventory helpers."""
import os


def restock(item, count):
    """Adds stock."""
    item.count += count
    return item


class Warehouse:
    def __init__(self):
        self.items = {}

    def add(self, item):
        self.items[item.name] = item

    def remove(self, name):
        return self.items.pop(name, None)


def audit(warehouse):
    return sorted(warehouse.items)
`;

// One definition per language, each with a recognisable function name, plus filler definitions.
const SAMPLES: Record<string, { file: string; code: string; fn: string }> = {
  python: { file: 'a.py', fn: 'def compute_total(', code: 'def compute_total(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n' },
  javascript: { file: 'a.js', fn: 'function computeTotal(', code: 'function computeTotal(xs) {\n  let total = 0;\n  for (const x of xs) total += x;\n  return total;\n}\n' },
  typescript: { file: 'a.ts', fn: 'export function computeTotal(', code: 'export function computeTotal(xs: number[]): number {\n  let total = 0;\n  for (const x of xs) total += x;\n  return total;\n}\n' },
  tsx: { file: 'a.tsx', fn: 'export function Total(', code: 'export function Total(props: { xs: number[] }) {\n  const total = props.xs.reduce((a, b) => a + b, 0);\n  return <span className="total">{total}</span>;\n}\n' },
  go: { file: 'a.go', fn: 'func ComputeTotal(', code: 'func ComputeTotal(xs []int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n' },
  java: { file: 'A.java', fn: 'static int computeTotal(', code: '  static int computeTotal(int[] xs) {\n    int total = 0;\n    for (int x : xs) total += x;\n    return total;\n  }\n' },
  rust: { file: 'a.rs', fn: 'pub fn compute_total(', code: 'pub fn compute_total(xs: &[i64]) -> i64 {\n    let mut total = 0;\n    for x in xs {\n        total += x;\n    }\n    total\n}\n' },
};

function sampleFile(language: string): string {
  const { code } = SAMPLES[language]!;
  const filler = (i: number) => code.replaceAll(/compute_?[tT]otal|Total|computeTotal|ComputeTotal/g, `helper${i}`);
  const body = [filler(1), filler(2), code, filler(3), filler(4)].join('\n');
  if (language === 'go') return `package main\n\n${body}`;
  if (language === 'java') return `class A {\n${body}}\n`;
  return body;
}

describe('CodeChunker', () => {
  it('splits at definitions, merging small neighbours, with language and line ranges', async () => {
    const chunks = await new CodeChunker({ chunkSize: 160 }).chunk(doc(PYTHON), { sourceName: 'inventory.py' });
    expect(chunks.map((c) => c.content)).toEqual([
      '"""Inventory helpers."""\nimport os\n\n\ndef restock(item, count):\n    """Adds stock."""\n    item.count += count\n    return item',
      'class Warehouse:\n    def __init__(self):\n        self.items = {}\n\n    def add(self, item):\n        self.items[item.name] = item',
      '    def remove(self, name):\n        return self.items.pop(name, None)\n\n\ndef audit(warehouse):\n    return sorted(warehouse.items)',
    ]);
    expect(chunks.map((c) => [c.meta_data.start_line, c.meta_data.end_line])).toEqual([
      [1, 8],
      [11, 16],
      [18, 23],
    ]);
    for (const chunk of chunks) {
      expect(chunk.meta_data).toMatchObject({ language: 'python', chunk_size: chunk.content.length });
      expect(linesOf(PYTHON, chunk)).toBe(chunk.content);
      expect(chunk.content.length).toBeLessThanOrEqual(160);
    }
    expect(chunks.map((c) => c.id)).toEqual(['src_1', 'src_2', 'src_3']);
  });

  it('keeps a file that fits in one chunk whole, without parsing it', async () => {
    const result = await splitCode(PYTHON, { grammar: 'python', chunkSize: 2048 });
    expect(result.splitter).toBe('whole');
    expect(result.pieces).toEqual([{ start: 0, end: PYTHON.trimEnd().length, startLine: 1, endLine: 23 }]);
    expect(new CodeChunker().chunkSize).toBe(2048);
    expect((createChunker('CodeChunker', { chunkSize: 100, overlap: 10 }) as CodeChunker).chunkSize).toBe(100);
  });

  for (const language of Object.keys(SAMPLES)) {
    it(`parses ${language} and keeps each definition whole`, async () => {
      const { file, fn, code } = SAMPLES[language]!;
      const text = sampleFile(language);
      const size = code.length + 10;
      const split = await splitCode(text, { grammar: languageForFileName(file), chunkSize: size });
      expect(split.splitter).toBe('syntax');
      const chunks = await new CodeChunker({ chunkSize: size }).chunk(doc(text), { sourceName: file });
      expect(chunks.length).toBeGreaterThan(1);
      const holder = chunks.filter((c) => c.content.includes(fn));
      expect(holder).toHaveLength(1);
      expect(holder[0]!.content).toContain(code.trim());
      for (const chunk of chunks) {
        expect(chunk.content.length).toBeLessThanOrEqual(size);
        expect(chunk.meta_data.language).toBe(language);
        expect(linesOf(text, chunk)).toBe(chunk.content);
      }
    });
  }

  it('descends into a definition too large for one chunk, keeping its methods whole', async () => {
    const methods = Array.from({ length: 12 }, (_, i) => `    def method_${i}(self):\n        return ${i} * ${i}\n`).join('\n');
    const text = `class Big:\n${methods}\n\ndef after():\n    pass\n`;
    const chunks = await new CodeChunker({ chunkSize: 120 }).chunk(doc(text), { sourceName: 'big.py' });
    expect(chunks.length).toBeGreaterThan(3);
    for (let i = 0; i < 12; i++) expect(chunks.filter((c) => c.content.includes(`def method_${i}(self):\n        return ${i} * ${i}`))).toHaveLength(1);
    // Indentation is kept, because cuts are moved to the start of the line.
    expect(chunks[1]!.content.startsWith('    def method_')).toBe(true);
  });

  it('cuts only a token larger than the chunk as text', async () => {
    const literal = `"${'word '.repeat(60)}"`;
    const text = `def short():\n    return 1\n\nBLOB = ${literal}\n\ndef tail():\n    return 2\n`;
    const chunks = await new CodeChunker({ chunkSize: 80 }).chunk(doc(text), { sourceName: 'blob.py' });
    expect(chunks[0]!.content).toBe('def short():\n    return 1');
    expect(chunks.at(-1)!.content).toBe('def tail():\n    return 2');
    expect(chunks.every((c) => c.content.length <= 80)).toBe(true);
    expect(chunks.map((c) => c.content.replaceAll(/\s/g, '')).join('')).toBe(text.replaceAll(/\s/g, ''));
  });

  it('survives nesting deeper than the call stack', async () => {
    const text = `x = ${'1 + '.repeat(20_000)}1\n`;
    const chunks = await new CodeChunker({ chunkSize: 500 }).chunk(doc(text), { sourceName: 'deep.py' });
    expect(chunks.every((c) => c.content.length <= 500)).toBe(true);
    expect(chunks.map((c) => c.content.replaceAll(/\s/g, '')).join('')).toBe(text.replaceAll(/\s/g, ''));
  });

  it('picks the language from the option, metadata, the file name, the source name or a shebang', () => {
    expect(detectLanguage(doc('x'), 'TS', undefined)).toEqual({ language: 'typescript', grammar: 'typescript' });
    expect(detectLanguage(doc('x', { meta_data: { language: 'golang' } }), undefined, 'a.py')).toEqual({ language: 'go', grammar: 'go' });
    expect(detectLanguage(doc('x', { meta_data: { file_name: 'lib.rs' } }), undefined, 'a.py').grammar).toBe('rust');
    expect(detectLanguage(doc('x'), undefined, 'dir/App.tsx').grammar).toBe('tsx');
    expect(detectLanguage(doc('#!/usr/bin/env python3\nprint(1)\n'), undefined, 'script').grammar).toBe('python');
    expect(detectLanguage(doc('plain words'), undefined, 'notes')).toEqual({ language: 'text', grammar: undefined });
    expect(detectLanguage(doc('x'), 'COBOL', undefined)).toEqual({ language: 'cobol', grammar: undefined });
    expect(normalizeLanguage('.java')).toBe('java');
    expect(languageForFileName('https://example.com/src/main.go?raw=1')).toBe('go');
  });

  it('splits unknown languages and files over maxParseChars as text, at line breaks', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} of some config`).join('\n');
    const text = await splitCode(lines, { grammar: undefined, chunkSize: 100 });
    expect(text.splitter).toBe('text');
    const chunks = await new CodeChunker({ chunkSize: 100 }).chunk(doc(lines), { sourceName: 'app.conf' });
    expect(chunks.every((c) => c.meta_data.language === 'text' && c.content.length <= 100 && !c.content.endsWith(' of'))).toBe(true);
    expect(chunks.map((c) => c.content).join('\n')).toBe(lines);
    const big = await splitCode(sampleFile('python'), { grammar: 'python', chunkSize: 100, maxParseChars: 10 });
    expect(big.splitter).toBe('text');
  });

  it('loads each grammar once, from the npm package, on first use', async () => {
    expect(grammarPath('python')).toMatch(/@vscode[\\/]tree-sitter-wasm[\\/]wasm[\\/]tree-sitter-python\.wasm$/);
    const first = loadGrammar('rust');
    expect(loadGrammar('rust')).toBe(first);
    expect(await first).toBe(await loadGrammar('rust'));
  });
});
