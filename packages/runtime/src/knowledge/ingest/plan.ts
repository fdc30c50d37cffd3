/**
 * @module knowledge/ingest/plan
 * An upload resolved once, before anything is read: the reader and chunker that will build the
 * content, the id it is stored under and, for bytes, their digest. Plain data, so a durable job
 * carries it as it is; the job only looks its reader and chunker up by these ids.
 */
import type { SourceLocation } from '../options.js';
import type { Metadata } from '../types.js';

export interface IngestPlan {
  /** The id the chunks are stored under. */
  content_id: string;
  /** A byte reader for bytes and text; a source reader for a location or topic. */
  reader: string;
  /** What a source reader reads (normalised by it): a location or a topic. */
  url?: string | undefined;
  topic?: string | undefined;
  /** For the `url` reader: the byte reader named to read what it fetches. */
  read_with?: string | undefined;
  /** The chunker; absent when each part's reader picks its own (a URL's reader follows its content type). */
  chunker?: string | undefined;
  chunk_size?: number | undefined;
  chunk_overlap?: number | undefined;
  /** The name the content was given (also what a byte reader reads it as). */
  name?: string | undefined;
  /** MIME type of uploaded bytes, as sent. */
  mime_type?: string | undefined;
  reader_options?: Record<string, unknown> | undefined;
  metadata?: Metadata | undefined;
  /** The owner; absent for shared content. */
  user_id?: string | undefined;
  /** The tenant the content belongs to (part of its id); absent: none. */
  tenant_id?: string | undefined;
  /** SHA-256 (hex) of the bytes (a text's UTF-8), when they were there to hash at upload. */
  sha256?: string | undefined;
}

/** What a plan is followed with: the bytes or text an upload stored, or the location or topic it names. */
export type IngestInput = { buffer: Uint8Array } | { text: string } | SourceLocation;
