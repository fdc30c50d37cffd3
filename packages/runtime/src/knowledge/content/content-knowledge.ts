/**
 * @module knowledge/content/content-knowledge
 * What the content service and its jobs need of a hosted knowledge base that takes content;
 * Knowledge implements it.
 */
import type { KnowledgeComponent } from '../../components/component.js';
import type { IngestInput, IngestPlan } from '../ingest/plan.js';
import type { IngestOptions, InsertChoices, InsertResult, KnowledgeSearchOptions, KnowledgeHit, SourceLocation } from '../options.js';
import type { FailedChild, SourceChild } from '../readers/sources/source-reader.js';
import type { RemoteSource } from '../remote-sources/remote-source.js';
import type { CollectionKnowledge } from './collection-job.js';

export interface ContentKnowledge extends KnowledgeComponent {
  readonly maxContentBytes: number;
  /** How many hits a search returns when the caller does not say. */
  readonly maxResults?: number | undefined;
  checkInsert(choices: InsertChoices): void;
  /** Validates an upload's choices and resolves them once into the plan its job follows. */
  plan(choices: InsertChoices, source: { sha256: string } | SourceLocation): IngestPlan;
  /** Follows a plan: read -> chunk -> embed -> store. */
  ingest(plan: IngestPlan, input: IngestInput, options?: IngestOptions): Promise<InsertResult>;
  /** The id of content a remote path will be read into (its reader follows each file's name). */
  contentIdentity(choices: InsertChoices, source: { remote: string }): string;
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
    typeof k.plan === 'function' &&
    typeof k.ingest === 'function' &&
    typeof k.search === 'function' &&
    typeof k.remove === 'function' &&
    typeof k.checkInsert === 'function' &&
    typeof k.contentIdentity === 'function'
  );
}
