/**
 * @module knowledge/ingest/planner
 * Resolving what an insert asks for, before anything is read: the reader (by id, instance,
 * file name or MIME type; for a location or topic, the source reader), the chunker (one the
 * reader supports, whose needs the knowledge base meets), and the content's identity. Every
 * refusal here is a 400 at upload time; `plan` turns the result into an IngestPlan a job carries.
 */
import { badRequest } from '../../errors.js';
import type { Model } from '../../model/model.js';
import type { Chunker } from '../chunkers/list.js';
import { CHUNKER_NEEDS, createChunker } from '../chunkers/registry.js';
import type { Embedder } from '../../model/embedder.js';
import type { InsertChoices, SourceLocation } from '../options.js';
import { type Reader } from '../readers/reader.js';
import { isSourceReader, type SourceReader } from '../readers/sources/source-reader.js';
import type { ReaderRegistry } from '../readers/registry.js';
import { UrlReader } from '../readers/sources/url.js';
import { sha256, stableJson, uuidFromHash } from './identity.js';
import { checkMetadata, checkTenantId, checkUserId } from './metadata.js';
import type { IngestPlan } from './plan.js';

/** What the planner needs of its knowledge base. */
export interface PlannerHost {
  readonly id: string;
  readonly readers: ReaderRegistry;
  readonly embedder: Embedder | undefined;
  /** The model chunkers may call (the knowledge base's own, else its runtime's). */
  readonly chunkModel: Model | undefined;
}

/** What an upload's identity is computed over: its bytes' digest, a location or topic, or a remote path. */
export type PlannedSource = { bytes: Uint8Array } | { text: string } | { sha256: string } | SourceLocation | { remote: string };

/** What validating an upload's choices resolved. */
interface Settled {
  /** For bytes: the reader and chunker. */
  bytes?: { reader: Reader; chunker: Chunker };
  /** For a location or topic: the source reader (and the byte reader the url reader uses), and the normalised location. */
  source?: { reader: SourceReader; readWith?: Reader };
  location?: { url?: string; topic?: string };
}

export class Planner {
  constructor(private readonly host: PlannerHost) {}

  /** The byte reader for file content: the one named, else by file name and MIME type. */
  byteReader(choices: Pick<InsertChoices, 'reader' | 'name' | 'mimeType'>): Reader {
    const { readers } = this.host;
    return typeof choices.reader === 'object' ? choices.reader : choices.reader !== undefined ? readers.get(choices.reader) : readers.forFile(choices.name ?? 'text', choices.mimeType);
  }

  /** The chunker for what `reader` read: the one named (which the reader must support), else the reader's first. */
  chunkerFor(reader: Reader, options: Pick<InsertChoices, 'chunker' | 'chunkSize' | 'chunkOverlap'>): Chunker {
    if (typeof options.chunker === 'object') return options.chunker;
    const key = options.chunker ?? reader.chunkers[0];
    if (key === undefined) throw badRequest(`Reader "${reader.id}" supports no chunker`);
    if (!reader.chunkers.includes(key as Reader['chunkers'][number])) {
      throw badRequest(`Reader "${reader.id}" does not support chunker "${key}"; supported: ${reader.chunkers.join(', ')}`);
    }
    // Refused before anything is read, so an upload that cannot be chunked answers 400.
    const needs = CHUNKER_NEEDS[key as Reader['chunkers'][number]];
    const id = this.host.id;
    if (needs === 'embedder' && !this.host.embedder) {
      throw badRequest(`${key} needs an embedder, and knowledge "${id}" has none: give the Knowledge an \`embedder\` (e.g. embedderFromEnvironment(): the local sentence encoder with no key, or OpenAI or Ollama embeddings)`);
    }
    if (needs === 'model' && !this.host.chunkModel) {
      throw badRequest(`${key} needs a model, and knowledge "${id}" has none: give the Knowledge a \`model\`, or the runtime a default model (its \`model\` option or OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST in its environment)`);
    }
    return createChunker(key, { ...(options.chunkSize !== undefined ? { chunkSize: options.chunkSize } : {}), ...(options.chunkOverlap !== undefined ? { overlap: options.chunkOverlap } : {}) });
  }

  /** The source reader for a location or topic, and the byte reader the `url` reader should use. */
  resolveSource(choices: InsertChoices, location: SourceLocation): { reader: SourceReader; readWith?: Reader } {
    const { readers } = this.host;
    const named = typeof choices.reader === 'object' ? choices.reader : choices.reader !== undefined ? readers.get(choices.reader) : undefined;
    if (named && isSourceReader(named)) {
      if ('topic' in location && named.source === 'url') throw badRequest(`The ${named.id} reader reads a url, not a topic`);
      if ('url' in location && named.source === 'topic') throw badRequest(`The ${named.id} reader reads a topic (send the search query as topic), not a url`);
      return { reader: named };
    }
    if ('topic' in location) {
      const topical = readers.list().filter((r) => isSourceReader(r) && r.source !== 'url').map((r) => r.id);
      if (named) throw badRequest(`The ${named.id} reader reads file content, not a topic; readers for a topic: ${topical.join(', ') || 'none'}`);
      throw badRequest(`A topic needs a reader_id: ${topical.join(' or ') || 'no reader here reads topics'}`);
    }
    const url = this.sourceReader('url');
    return named ? { reader: url, readWith: named } : { reader: url };
  }

  /** A source reader by id; `url` is always there, registered or not. */
  sourceReader(id: string): SourceReader {
    const { readers } = this.host;
    if (id === 'url') {
      const registered = readers.list().find((r) => r.id === 'url');
      return registered && isSourceReader(registered) ? registered : new UrlReader();
    }
    const reader = readers.get(id);
    if (!isSourceReader(reader)) throw badRequest(`The ${reader.id} reader reads file content, not a url or topic`);
    return reader;
  }

  /**
   * Refuses an unknown reader, an unsupported chunker or invalid metadata without reading
   * anything, so an upload processed in the background can still be refused with a 400.
   */
  checkInsert(choices: InsertChoices): void {
    this.checkBytes(choices);
  }

  /** checkInsert, answering the reader and chunker it resolved. */
  private checkBytes(choices: InsertChoices): { reader: Reader; chunker: Chunker } {
    checkMetadata(choices.metadata);
    checkUserId(choices.userId);
    checkTenantId(choices.tenantId);
    const reader = this.byteReader(choices);
    if (isSourceReader(reader)) {
      const what = reader.source === 'topic' ? 'a topic' : reader.source === 'url' ? 'a url' : 'a url or a topic';
      throw badRequest(`The ${reader.id} reader reads ${what}, not file content`);
    }
    if (choices.readerOptions !== undefined && Object.keys(choices.readerOptions).length > 0) throw badRequest(`reader_options are for the readers of a url or topic, not for the ${reader.id} reader`);
    return { reader, chunker: this.chunkerFor(reader, choices) };
  }

  /**
   * Checks a location or topic and the choices for it without reading anything: the reader
   * exists and reads this kind of source, the location is one it reads, its options are valid,
   * a named chunker is one it supports, the metadata is valid. Returns the normalised location.
   */
  checkSource(choices: InsertChoices, location: SourceLocation): { url?: string; topic?: string } {
    return this.settle(choices, location).location!;
  }

  /**
   * The id of content before it is read: a digest of this knowledge base, the reader and chunker
   * settings that will build it, the source (its bytes or text, or a URL, whose bytes are
   * compared when it is refreshed) and the owner when there is one. Metadata is not part of it,
   * so the same bytes uploaded twice are one content; the same bytes from two users are two, so
   * one user's upload never becomes or replaces another's. UUID-formatted, like agno's ids.
   */
  contentIdentity(choices: InsertChoices, source: PlannedSource): string {
    return this.identity(choices, source, this.settle(choices, source));
  }

  /**
   * Resolves an upload once into the plan its job follows: validated choices, the reader and
   * chunker (by id), the normalised location, the content id and, for bytes, their digest.
   */
  plan(choices: InsertChoices, source: { sha256: string } | SourceLocation): IngestPlan {
    const settled = this.settle(choices, source);
    // A location is identified as its reader normalised it, so the same page is the same content.
    const checked = settled.location;
    const identified = checked === undefined ? source : checked.url !== undefined ? { url: checked.url } : { topic: checked.topic ?? ('topic' in source ? source.topic : '') };
    const base = {
      content_id: this.identity(choices, identified, settled),
      ...(typeof choices.chunker === 'object' ? { chunker: choices.chunker.type } : choices.chunker !== undefined ? { chunker: choices.chunker } : {}),
      ...(choices.chunkSize !== undefined ? { chunk_size: choices.chunkSize } : {}),
      ...(choices.chunkOverlap !== undefined ? { chunk_overlap: choices.chunkOverlap } : {}),
      ...(choices.name !== undefined ? { name: choices.name } : {}),
      ...(choices.mimeType !== undefined ? { mime_type: choices.mimeType } : {}),
      ...(choices.readerOptions !== undefined ? { reader_options: choices.readerOptions } : {}),
      ...(choices.metadata !== undefined ? { metadata: choices.metadata } : {}),
      ...(choices.userId !== undefined ? { user_id: choices.userId } : {}),
      ...(choices.tenantId !== undefined ? { tenant_id: choices.tenantId } : {}),
    };
    if (settled.bytes) return { ...base, reader: settled.bytes.reader.id, chunker: settled.bytes.chunker.type, sha256: (source as { sha256: string }).sha256 };
    const { reader, readWith } = settled.source!;
    return { ...base, reader: reader.id, ...(readWith ? { read_with: readWith.id } : {}), ...identified };
  }

  /** Validates the choices for a source, answering what it resolved on the way. */
  private settle(choices: InsertChoices, source: PlannedSource): Settled {
    if ('remote' in source) return {};
    if ('url' in source || 'topic' in source) {
      checkMetadata(choices.metadata);
      checkUserId(choices.userId);
      checkTenantId(choices.tenantId);
      const resolved = this.resolveSource(choices, source);
      const { reader, readWith } = resolved;
      if (choices.chunker !== undefined && (readWith || reader.id !== 'url')) this.chunkerFor(readWith ?? reader, choices);
      return { source: resolved, location: reader.check({ ...source, name: choices.name, options: choices.readerOptions ?? {}, readWith }) };
    }
    return { bytes: this.checkBytes(choices) };
  }

  private identity(choices: InsertChoices, source: PlannedSource, settled: Settled): string {
    let readerId = 'auto';
    let chunker = choices.chunker === undefined ? 'auto' : typeof choices.chunker === 'object' ? choices.chunker.type : choices.chunker;
    if ('remote' in source) {
      // A remote file's reader follows its name unless one is named, as for an upload.
      if (choices.reader !== undefined) {
        const reader = typeof choices.reader === 'object' ? choices.reader : this.host.readers.get(choices.reader);
        readerId = reader.id;
        if (chunker === 'auto') chunker = reader.chunkers[0] ?? 'none';
      }
    } else if ('url' in source || 'topic' in source) {
      // A URL's reader follows the content type it is served with, which is not known yet.
      if (choices.reader !== undefined) {
        const { reader, readWith } = settled.source!;
        readerId = (readWith ?? reader).id;
        if (chunker === 'auto') chunker = (readWith ?? reader).chunkers[0] ?? 'none';
      }
    } else {
      const reader = settled.bytes!.reader;
      readerId = reader.id;
      if (chunker === 'auto') chunker = reader.chunkers[0] ?? 'none';
    }
    // `sha256` is the digest of the bytes (or the text's UTF-8) hashed by the caller, so the id is the same.
    const what =
      'remote' in source
        ? `remote:${source.remote}`
        : 'url' in source
          ? `url:${source.url}`
          : 'topic' in source
            ? `topic:${source.topic}`
            : 'sha256' in source
              ? `bytes:${source.sha256}`
              : 'text' in source
                ? `bytes:${sha256(source.text)}`
                : `bytes:${sha256(source.bytes)}`;
    const options = choices.readerOptions && Object.keys(choices.readerOptions).length > 0 ? [`options:${stableJson(choices.readerOptions)}`] : [];
    // Appended only when there is an owner (a tenant), so shared content (content of no tenant)
    // keeps the ids it always had; two tenants storing the same bytes get two ids.
    const owner = choices.userId !== undefined ? [`owner:${choices.userId}`] : [];
    const tenant = choices.tenantId !== undefined ? [`tenant:${choices.tenantId}`] : [];
    return uuidFromHash(sha256([this.host.id, readerId, chunker, choices.chunkSize ?? '', choices.chunkOverlap ?? '', what, ...options, ...owner, ...tenant].join('\n')));
  }
}
