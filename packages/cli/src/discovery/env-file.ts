/**
 * Reads one key from a dotenv-style file without loading it into the environment. Deliberately
 * not a dotenv library: only the rules needed to find RUNTIME_URL, and never a crash on odd
 * files (unreadable or non-UTF-8 means "absent").
 */
import { readFileSync } from 'node:fs';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The value the file gives `key` (last assignment wins), or undefined when absent or empty. */
export function parseEnvValue(text: string, key: string): string | undefined {
  let result: string | undefined;
  for (const raw of text.split(/\r?\n|\r/)) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const exported = /^export[ \t]+/.exec(line);
    if (exported) line = line.slice(exported[0].length);
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    if (line.slice(0, eq).trim() !== key) continue;
    result = unquote(line.slice(eq + 1).trim());
  }
  return result === '' ? undefined : result;
}

function unquote(value: string): string {
  const quote = value[0];
  if (quote === '"' || quote === "'") {
    const end = value.indexOf(quote, 1);
    // An unterminated quote is kept as written rather than guessed at.
    return end < 0 ? value : value.slice(1, end);
  }
  // A comment starts only at a '#' after whitespace, so URL fragments survive.
  const comment = /[ \t]#/.exec(value);
  return comment ? value.slice(0, comment.index).trimEnd() : value;
}

export function readEnvFileValue(path: string, key: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return undefined;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return parseEnvValue(text, key);
}
