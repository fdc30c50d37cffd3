/**
 * @module knowledge/readers/bytes/json
 * JSON: a top-level array gives one Document per element, anything else one Document. Each
 * holds its element re-serialised compactly, so a chunk is valid JSON on its own.
 *
 * Large files are read in the worker pool (offloaded.ts). Before parsing, one pass over the text
 * (outside strings) measures the nesting and counts a top-level array's elements, so a file
 * nested past KNOWLEDGE_MAX_DEPTH (which JSON.parse accepts but re-serialising overflows the
 * stack on) or with more elements than KNOWLEDGE_MAX_DOCUMENTS is refused at once, before any
 * of it is built in memory.
 */
import { unprocessable } from '../../../errors.js';
import type { Offload } from '../../../workers/offload.js';
import { INGEST_LIMIT_DEFAULTS, tooDeep, tooManyCharacters, tooManyDocuments, type ReadLimits } from '../../limits.js';
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type ReadOptions, type Reader } from '../reader.js';
import { large, offloadFor, readInWorker, reply, type ReadPayload, type ReadReply } from './offloaded.js';

export interface JsonReaderOptions {
  /** Where large files are parsed; default the process's worker pool (see workers/offload). */
  offload?: Offload;
}

export class JsonReader implements Reader {
  readonly id = 'json';
  readonly name = 'JsonReader';
  readonly description = 'Reads JSON files: one document per element of a top-level array';
  readonly chunkers = ['FixedSizeChunker', 'AgenticChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.json', 'application/json'] as const;
  private readonly offload: Offload | undefined;

  constructor(options: JsonReaderOptions = {}) {
    this.offload = options.offload;
  }

  async read(input: ReaderInput, options?: ReadOptions): Promise<Document[]> {
    const where = offloadFor(this.offload);
    if (where !== 'inline' && large(input)) return readInWorker(where, 'json', input, options);
    return readJson(input, options?.limits);
  }
}

function readJson(input: ReaderInput, limits: ReadLimits | undefined): Document[] {
  const text = decodeText(input, 'json');
  requireContent(text, input, 'json');
  const elements = measure(text, input.name, limits?.maxDepth ?? INGEST_LIMIT_DEFAULTS.maxDepth);
  if (limits && elements > limits.maxDocuments) throw tooManyDocuments(input.name, limits.maxDocuments);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw unprocessable(`json reader: "${input.name}" is not valid JSON (${reason})`, cause);
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  if (items.length === 0) throw unprocessable(`json reader: "${input.name}" is an empty array`);
  const name = stem(input.name);
  const documents: Document[] = [];
  let characters = 0;
  for (const [i, item] of items.entries()) {
    const content = JSON.stringify(item);
    characters += content.length;
    if (limits && characters > limits.maxCharacters) throw tooManyCharacters(input.name, limits.maxCharacters);
    documents.push({ content, name, id: `${name}_${i + 1}`, meta_data: { page: i + 1 } });
  }
  return documents;
}

const [QUOTE, BACKSLASH, COMMA, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x22, 0x5c, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d];

/**
 * One pass over JSON text outside its strings: refuses nesting deeper than `maxDepth`, and
 * answers how many documents it makes (a top-level array's elements, else 1). Malformed text
 * is left for JSON.parse to describe.
 */
export function measure(text: string, name: string, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  let topArray: boolean | undefined;
  let commas = 0;
  let filled = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (depth === 0 && topArray === undefined) topArray = c === OPEN_ARRAY;
    if (depth === 1 && topArray) {
      if (c === COMMA) commas++;
      else if (c !== CLOSE_ARRAY) filled = true;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) throw tooDeep(name, maxDepth, 'values');
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return topArray ? (filled ? commas + 1 : 0) : 1;
}

/** The worker task (see offloaded.ts): this reader, inline, in a worker process. */
export function readInline(payload: ReadPayload): ReadReply {
  return reply(readJson({ data: payload.data, name: payload.name }, payload.limits));
}
