/**
 * @module knowledge/configurable
 * What `/knowledge/config` and the source browser need from a hosted knowledge base. Knowledge
 * implements it; so can a wrapper that delegates to a Knowledge (the quickstart's docs load in
 * the background).
 */
import type { VectorDbInfo } from './options.js';
import type { ReaderRegistry } from './readers/registry.js';
import type { RemoteSource } from './remote-sources/remote-source.js';

export interface ConfigurableKnowledge {
  readonly readers: ReaderRegistry;
  /** Remote content sources, listed by /knowledge/config and browsed by the sources routes. */
  readonly contentSources?: readonly RemoteSource[];
  vectorDb(): VectorDbInfo;
  /** With `userId` (`tenantId`), the keys of the content that user (tenant) may see. */
  filterKeys(options?: { userId?: string | undefined; tenantId?: string | undefined }): Promise<string[]>;
}

/** Structural, so it also holds across duplicated copies of this module. */
export function isConfigurableKnowledge(value: unknown): value is ConfigurableKnowledge {
  if (typeof value !== 'object' || value === null) return false;
  const k = value as Partial<ConfigurableKnowledge>;
  return typeof k.vectorDb === 'function' && typeof k.filterKeys === 'function' && typeof k.readers?.readersForType === 'function';
}
