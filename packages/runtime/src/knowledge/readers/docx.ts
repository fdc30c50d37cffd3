/**
 * @module knowledge/readers/docx
 * DOCX: the document's paragraphs (mammoth's raw text, paragraphs separated by blank lines) as
 * one Document. mammoth is imported on first use. Legacy `.doc` is not claimed: it is a
 * different binary format that mammoth cannot read.
 */
import { unprocessable } from '../errors.js';
import type { Document, ReaderInput } from '../types.js';
import { requireContent, stem, type Reader } from './reader.js';

export class DocxReader implements Reader {
  readonly id = 'docx';
  readonly name = 'DocxReader';
  readonly description = 'Reads Word .docx files as one document of paragraphs';
  readonly chunkers = ['DocumentChunker', 'AgenticChunker', 'FixedSizeChunker', 'RecursiveChunker', 'SemanticChunker'] as const;
  readonly contentTypes = ['.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'] as const;

  async read(input: ReaderInput): Promise<Document[]> {
    if (typeof input.data === 'string') throw unprocessable(`docx reader: "${input.name}" must be given as file bytes, not text`);
    const mammoth = (await import('mammoth')).default;
    let text: string;
    try {
      text = (await mammoth.extractRawText({ buffer: Buffer.from(input.data) })).value;
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw unprocessable(`docx reader: "${input.name}" could not be read as DOCX (${reason})`, cause);
    }
    const content = text.replace(/\n{3,}/g, '\n\n').trim();
    requireContent(content, input, this.id);
    const name = stem(input.name);
    return [{ content, name, id: name, meta_data: {} }];
  }
}
