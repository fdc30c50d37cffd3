import { describe, expect, it } from 'vitest';
import { AgenticChunker } from './agentic.js';
import { CodeChunker } from './code.js';
import { createChunker } from './registry.js';
import { RowChunker } from './row.js';
import { chunkerSettings, contentChunkerSettings } from './settings.js';

describe('chunker settings', () => {
  it('reads what an instance was built with, defaults included, under the upload\'s names', () => {
    expect(chunkerSettings(createChunker('FixedSizeChunker'))).toEqual({ chunk_size: 5000, chunk_overlap: 0 });
    expect(chunkerSettings(createChunker('DocumentChunker', { chunkSize: 800, overlap: 40 }))).toEqual({ chunk_size: 800, chunk_overlap: 40 });
    expect(chunkerSettings(createChunker('MarkdownChunker', { chunkSize: 1200 }))).toEqual({ chunk_size: 1200, chunk_overlap: 0, heading_level: 0 });
    expect(chunkerSettings(new RowChunker())).toEqual({ skip_header: false, clean_rows: true });
    expect(chunkerSettings(new CodeChunker({ language: 'python' }))).toMatchObject({ chunk_size: 2048, language: 'python' });
    expect(chunkerSettings(createChunker('SemanticChunker'))).toMatchObject({ chunk_size: 5000, similarity_threshold: 0.5, similarity_window: 3 });
  });

  it('leaves out collaborators and long texts (a model, a custom prompt of pages)', () => {
    expect(chunkerSettings(new AgenticChunker({ chunkSize: 900, instructions: 'x'.repeat(5000) }))).toEqual({ chunk_size: 900 });
    expect(chunkerSettings(new AgenticChunker({ instructions: 'Break at headings.' }))).toEqual({ chunk_size: 5000, instructions: 'Break at headings.' });
  });

  it('keys the settings by chunker when one content was chunked by several', () => {
    const fixed = createChunker('FixedSizeChunker', { chunkSize: 100 });
    expect(contentChunkerSettings([fixed, fixed])).toEqual({ chunk_size: 100, chunk_overlap: 0 });
    expect(contentChunkerSettings([fixed, new RowChunker()])).toEqual({ FixedSizeChunker: { chunk_size: 100, chunk_overlap: 0 }, RowChunker: { skip_header: false, clean_rows: true } });
    expect(contentChunkerSettings([])).toBeUndefined();
  });
});
