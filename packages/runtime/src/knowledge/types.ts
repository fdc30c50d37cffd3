/**
 * @module knowledge/types
 * The values that flow through the pipeline: a reader turns input into Documents, a chunker
 * turns each Document into Chunks, an embedder adds vectors, a vector store keeps them.
 * Field names follow the spec's snake_case (`meta_data`) so stored rows and API bodies match.
 */

/** Metadata values a filter can compare; nested objects are stored but not filterable. */
export type MetadataValue = string | number | boolean | null;
export type Metadata = Record<string, unknown>;

export interface Document {
  content: string;
  /** Display name, usually the file's stem. */
  name?: string | undefined;
  meta_data: Metadata;
  /** Stable per document (readers derive it from the name); chunk ids are built from it. */
  id?: string | undefined;
}

/** One stored unit: a Document piece with a required id. */
export interface Chunk extends Document {
  id: string;
}

/** What a reader reads: text already in memory, or bytes with the file name they came from. */
export interface ReaderInput {
  data: string | Uint8Array;
  /** Used for the document name and to pick a reader by extension. */
  name: string;
}
