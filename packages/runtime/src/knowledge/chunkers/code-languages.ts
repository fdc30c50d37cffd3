/**
 * @module knowledge/chunkers/code-languages
 * The languages CodeChunker parses, how a document's language is recognised, and the lazy,
 * cached loading of their grammars. Parsing uses web-tree-sitter with the prebuilt grammar
 * WASM files of @vscode/tree-sitter-wasm; both are npm packages, so nothing is downloaded at
 * run time. The files are found with `require.resolve`, which works from `src` under tsx and
 * from `dist` alike. Nothing loads until the first code document is chunked.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language } from 'web-tree-sitter';
import type { Document } from '../types.js';

/** A parseable language: the grammar file's stem, and the names and file types that select it. */
interface LanguageEntry {
  grammar: string;
  extensions: readonly string[];
  aliases: readonly string[];
}

export const CODE_LANGUAGES = {
  python: { grammar: 'python', extensions: ['.py', '.pyi', '.pyw'], aliases: ['py', 'python3'] },
  javascript: { grammar: 'javascript', extensions: ['.js', '.mjs', '.cjs', '.jsx'], aliases: ['js', 'jsx', 'node', 'ecmascript'] },
  typescript: { grammar: 'typescript', extensions: ['.ts', '.mts', '.cts'], aliases: ['ts'] },
  tsx: { grammar: 'tsx', extensions: ['.tsx'], aliases: [] },
  go: { grammar: 'go', extensions: ['.go'], aliases: ['golang'] },
  java: { grammar: 'java', extensions: ['.java'], aliases: [] },
  rust: { grammar: 'rust', extensions: ['.rs'], aliases: ['rs'] },
  c_sharp: { grammar: 'c-sharp', extensions: ['.cs'], aliases: ['csharp', 'c#', 'cs'] },
  // The C++ grammar parses C as well, so C files use it too.
  cpp: { grammar: 'cpp', extensions: ['.cpp', '.cc', '.cxx', '.hpp', '.hh', '.hxx', '.c', '.h'], aliases: ['c++', 'c'] },
  ruby: { grammar: 'ruby', extensions: ['.rb'], aliases: ['rb'] },
  php: { grammar: 'php', extensions: ['.php'], aliases: [] },
  bash: { grammar: 'bash', extensions: ['.sh', '.bash'], aliases: ['sh', 'shell', 'zsh'] },
  powershell: { grammar: 'powershell', extensions: ['.ps1', '.psm1'], aliases: ['ps1', 'pwsh'] },
  css: { grammar: 'css', extensions: ['.css'], aliases: [] },
} as const satisfies Record<string, LanguageEntry>;

export type CodeLanguage = keyof typeof CODE_LANGUAGES;

const ENTRIES = Object.entries(CODE_LANGUAGES) as [CodeLanguage, LanguageEntry][];

/** `Python`, `py` and `.py` all name python; undefined for a language without a grammar. */
export function normalizeLanguage(name: string): CodeLanguage | undefined {
  const key = name.trim().toLowerCase().replace(/^\./, '');
  for (const [language, entry] of ENTRIES) {
    if (language === key || entry.grammar === key || entry.aliases.includes(key) || entry.extensions.includes(`.${key}`)) return language;
  }
  return undefined;
}

/** The language a file name's extension names (`app.test.ts` -> typescript). */
export function languageForFileName(name: string): CodeLanguage | undefined {
  // A URL's query or fragment is not part of its file name.
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(name) ? name.replace(/[?#].*$/s, '') : name;
  const base = (path.split(/[\\/]/).findLast((part) => part.length > 0) ?? path).toLowerCase();
  const dot = base.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = base.slice(dot);
  return ENTRIES.find(([, entry]) => entry.extensions.includes(ext))?.[0];
}

const SHEBANGS: readonly [RegExp, CodeLanguage][] = [
  [/python/, 'python'],
  [/\b(node|deno|bun)\b/, 'javascript'],
  [/\b(bash|sh|zsh|dash)\b/, 'bash'],
  [/\bruby\b/, 'ruby'],
  [/\bphp\b/, 'php'],
  [/\bpwsh\b/, 'powershell'],
];

/** The interpreter a `#!` first line names. */
export function languageForShebang(text: string): CodeLanguage | undefined {
  if (!text.startsWith('#!')) return undefined;
  const end = text.indexOf('\n');
  const line = end < 0 ? text : text.slice(0, end);
  return SHEBANGS.find(([pattern]) => pattern.test(line))?.[1];
}

/** Metadata keys readers and callers use for where a document came from. */
const NAME_KEYS = ['file_name', 'filename', 'file_path', 'path', 'url', 'source'] as const;

/**
 * The language of a document, from the first that names one: the chunker's `language` option,
 * the document's `meta_data.language` (upload metadata ends up there), a file name in its
 * metadata, the name the content was read as, the document's own name, then a shebang line.
 * A `language` that names no supported grammar is returned as given, lower-cased, so the
 * chunks still say what they are (they are then split as text).
 */
export function detectLanguage(doc: Document, option: string | undefined, sourceName: string | undefined): { language: string; grammar: CodeLanguage | undefined } {
  const named = option ?? (typeof doc.meta_data.language === 'string' && doc.meta_data.language.trim() ? doc.meta_data.language : undefined);
  if (named !== undefined) return { language: normalizeLanguage(named) ?? named.trim().toLowerCase(), grammar: normalizeLanguage(named) };
  const names = [...NAME_KEYS.map((k) => doc.meta_data[k]), sourceName, doc.name].filter((n): n is string => typeof n === 'string' && n.length > 0);
  const grammar = names.map(languageForFileName).find((l) => l !== undefined) ?? languageForShebang(doc.content);
  return { language: grammar ?? 'text', grammar };
}

const require = createRequire(import.meta.url);

type TreeSitter = typeof import('web-tree-sitter');

let runtime: Promise<TreeSitter> | undefined;
const grammars = new Map<CodeLanguage, Promise<Language>>();

/** web-tree-sitter, initialised once with its own WASM found next to its module. */
export function treeSitter(): Promise<TreeSitter> {
  runtime ??= (async () => {
    const module = await import('web-tree-sitter');
    const wasm = require.resolve('web-tree-sitter/web-tree-sitter.wasm');
    await module.Parser.init({ locateFile: () => wasm });
    return module;
  })().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

/** The grammar's WASM file inside @vscode/tree-sitter-wasm. */
export function grammarPath(language: CodeLanguage): string {
  return join(dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm', `tree-sitter-${CODE_LANGUAGES[language].grammar}.wasm`);
}

/** Loads a grammar on first use and keeps it; a failed load is forgotten so a later call retries. */
export function loadGrammar(language: CodeLanguage): Promise<Language> {
  let loading = grammars.get(language);
  if (!loading) {
    loading = treeSitter().then((ts) => ts.Language.load(grammarPath(language)));
    loading.catch(() => grammars.delete(language));
    grammars.set(language, loading);
  }
  return loading;
}
