/**
 * @module knowledge/readers/bytes/json
 * JSON: a top-level array gives one Document per element, anything else one Document. Each
 * holds its element re-serialised compactly, so a chunk is valid JSON on its own.
 */
import { unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { decodeText, requireContent, stem, type Reader } from '../reader.js';

export class JsonReader implements Reader {
  readonly id = 'json';
  readonly name = 'JsonReader';
  readonly description = 'Reads JSON files: one document per element of a top-level array';
  readonly chunkers = ['FixedSizeChunker', 'AgenticChunker', 'DocumentChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.json', 'application/json'] as const;

  async read(input: ReaderInput): Promise<Document[]> {
    const text = decodeText(input, this.id);
    requireContent(text, input, this.id);
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
    return items.map((item, i) => ({
      content: JSON.stringify(item),
      name,
      id: `${name}_${i + 1}`,
      meta_data: { page: i + 1 },
    }));
  }
}
