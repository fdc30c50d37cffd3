/**
 * @module knowledge
 * The knowledge (RAG) pipeline's public surface: readers, chunkers, vector stores and the
 * Knowledge class that ties them together (embedders and rerankers are in model/ and providers/).
 */
export type { Document, Chunk, Metadata, ReaderInput } from './types.js';
export type { Reader } from './readers/reader.js';
export { TextReader } from './readers/bytes/text.js';
export { MarkdownReader } from './readers/bytes/markdown.js';
export { JsonReader } from './readers/bytes/json.js';
export { CsvReader, type CsvReaderOptions } from './readers/bytes/csv.js';
export { PdfReader } from './readers/bytes/pdf.js';
export { DocxReader } from './readers/bytes/docx.js';
export { ExcelReader, type ExcelReaderOptions } from './readers/bytes/excel.js';
export { FieldLabeledCsvReader, type FieldLabeledCsvReaderOptions } from './readers/bytes/field-labeled-csv.js';
export { PptxReader } from './readers/bytes/pptx.js';
export { ReaderRegistry, defaultReaders } from './readers/registry.js';
export type { ChunkContext, SizeOptions } from './chunkers/chunker.js';
export { CHUNKER_TYPES, type Chunker, type ChunkerType } from './chunkers/list.js';
export { FixedSizeChunker } from './chunkers/fixed-size.js';
export { RecursiveChunker } from './chunkers/recursive.js';
export { DocumentChunker } from './chunkers/document.js';
export { MarkdownChunker, type MarkdownChunkerOptions } from './chunkers/markdown.js';
export { RowChunker, type RowChunkerOptions } from './chunkers/row.js';
export { CodeChunker, splitCode, type CodeChunkerOptions, type CodeSplit, type CodePiece } from './chunkers/code.js';
export { CODE_LANGUAGES, type CodeLanguage } from './chunkers/code-languages.js';
export { SemanticChunker, type SemanticChunkerOptions } from './chunkers/semantic.js';
export { AgenticChunker, type AgenticChunkerOptions } from './chunkers/agentic.js';
export { CHUNKERS, CHUNKER_NEEDS, createChunker, type ChunkerInfo } from './chunkers/registry.js';
export * from './vector-stores/index.js';
export { Knowledge } from './knowledge.js';
export type { KnowledgeOptions, InsertOptions, InsertChoices, InsertResult, KnowledgeSearchOptions, KnowledgeHit, VectorDbInfo } from './options.js';
export { isConfigurableKnowledge, type ConfigurableKnowledge } from './configurable.js';
export { knowledgeConfig, type KnowledgeConfig } from './config.js';
export * from './remote-sources/index.js';
