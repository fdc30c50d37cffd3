/**
 * @module knowledge/content/content-knowledge
 * What the content service and its jobs need of a hosted knowledge base that takes content;
 * Knowledge implements it.
 */
import type { KnowledgeComponent } from '../../components/component.js';
import type { InsertChoices, InsertOptions, InsertResult, KnowledgeSearchOptions, KnowledgeHit, SourceLocation } from '../knowledge.js';
import type { FailedChild, SourceChild } from '../readers/reader.js';
import type { RemoteSource } from '../remote-sources/remote-source.js';
import type { CollectionKnowledge } from './collection-job.js';

export interface ContentKnowledge extends KnowledgeComponent {
  readonly maxContentBytes: number;
  checkInsert(choices: InsertChoices): void;
  /** Checks a url or topic and the choices for it without I/O; returns the normalised location. */
  checkSource(choices: InsertChoices, location: SourceLocation): { url?: string; topic?: string };
  /** `sha256`: the SHA-256 (hex) of the bytes or of the text's UTF-8, computed by the caller. */
  contentIdentity(choices: InsertChoices, source: { bytes: Uint8Array } | { text: string } | { sha256: string } | SourceLocation | { remote: string }): string;
  insert(options: InsertOptions): Promise<InsertResult>;
  search(query: string, options?: KnowledgeSearchOptions): Promise<KnowledgeHit[]>;
  remove(contentId: string, options?: { userId?: string | undefined }): Promise<boolean>;
  /** Collections (a website, a prefix, a crawl) are ingested as a parent with a child per item. */
  collectionReader?(choices: InsertChoices, location: SourceLocation): string | undefined;
  children?(choices: InsertChoices, location: SourceLocation, signal: AbortSignal | undefined, notes: string[]): AsyncIterable<SourceChild | FailedChild>;
  insertChild?: CollectionKnowledge['insertChild'];
  /** Remote places content is ingested from by path (POST /knowledge/remote-content). */
  readonly contentSources?: readonly RemoteSource[];
}

/** Structural, so it also holds across duplicated copies of the knowledge module. */
export function isContentKnowledge(value: KnowledgeComponent): value is ContentKnowledge {
  const k = value as Partial<ContentKnowledge>;
  return (
    typeof k.insert === 'function' &&
    typeof k.search === 'function' &&
    typeof k.remove === 'function' &&
    typeof k.checkInsert === 'function' &&
    typeof k.checkSource === 'function' &&
    typeof k.contentIdentity === 'function'
  );
}
