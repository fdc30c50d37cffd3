/**
 * What code chunking costs: CodeChunker (tree-sitter) on about 1 MB of Python, against the
 * text split it falls back to, and how long it holds the event loop (parsing is synchronous).
 *   npx tsx --conditions=source bench/chunkers.ts
 */
import { CodeChunker, splitCode } from '../packages/runtime/src/knowledge/chunkers/code.js';
import { loadGrammar, treeSitter } from '../packages/runtime/src/knowledge/chunkers/code-languages.js';
import { RecursiveChunker } from '../packages/runtime/src/knowledge/chunkers/recursive.js';

/** Generated Python: functions with docstrings and branches, and small classes. */
export function pythonSource(chars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const part = `def func_${i}(a, b):\n    """Docstring ${i}."""\n    x = a + b * ${i}\n    if x > 10:\n        return [y for y in range(a)]\n    return x\n\n\nclass K${i}:\n    def m(self):\n        return ${i}\n\n\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

/** Runs `run`, timing it and the longest stretch it kept a 1 ms interval timer from firing. */
async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; blockMs: number; value: T }> {
  let last = performance.now();
  let blockMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    blockMs = Math.max(blockMs, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 3));
  blockMs = 0;
  last = performance.now();
  const start = performance.now();
  const value = await run();
  const ms = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, 3));
  clearInterval(ticker);
  return { ms, blockMs, value };
}

export async function benchChunkers(): Promise<void> {
  const source = pythonSource(1_000_000);
  const doc = { content: source, name: 'big', id: 'big', meta_data: {} };
  const init = await timed(() => treeSitter());
  const grammar = await timed(() => loadGrammar('python'));
  const rows: [string, number, number, number][] = [];
  for (let round = 0; round < 3; round++) {
    const code = await timed(() => new CodeChunker().chunk(doc, { sourceName: 'big.py' }));
    const text = await timed(() => splitCode(source, { grammar: undefined, chunkSize: 2048 }));
    const recursive = await timed(async () => new RecursiveChunker({ chunkSize: 2048 }).chunk(doc));
    if (round === 2) {
      rows.push(['CodeChunker (tree-sitter)', code.ms, code.blockMs, code.value.length]);
      rows.push(['CodeChunker text fallback', text.ms, text.blockMs, text.value.pieces.length]);
      rows.push(['RecursiveChunker', recursive.ms, recursive.blockMs, recursive.value.length]);
    }
  }
  const { Parser } = await treeSitter();
  const parser = new Parser();
  parser.setLanguage(await loadGrammar('python'));
  const parse = await timed(async () => parser.parse(source));
  parse.value?.delete();
  parser.delete();

  const out = [
    `Chunking ${(source.length / 1e6).toFixed(2)} MB of Python (chunk_size 2048); first use: web-tree-sitter init ${init.ms.toFixed(0)} ms, python grammar ${grammar.ms.toFixed(0)} ms`,
    `${'strategy'.padEnd(28)} ${'time ms'.padStart(8)} ${'loop blocked ms'.padStart(16)} ${'chunks'.padStart(7)}`,
    ...rows.map(([name, ms, block, count]) => `${name.padEnd(28)} ${ms.toFixed(0).padStart(8)} ${block.toFixed(0).padStart(16)} ${String(count).padStart(7)}`),
    `${'tree-sitter parse alone'.padEnd(28)} ${parse.ms.toFixed(0).padStart(8)} ${parse.blockMs.toFixed(0).padStart(16)}`,
  ];
  process.stdout.write(`${out.join('\n')}\n\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchChunkers();
