/**
 * @module knowledge/config
 * What a runtime can do with content (`GET /knowledge/config`). It reports only what is real
 * here: the readers and chunkers of the hosted Knowledge instances (or the built-in set when
 * none is hosted), the metadata keys stored content can be filtered on, each instance's vector
 * store with the search types it supports (keyword only without an embedder), and the remote
 * content sources configured on each instance ([] when none).
 *
 * It reports what is registered, nothing hard-coded: with the default readers the answer is the
 * specification's tables (readers, the whole readersForType map, chunker defaults) plus a few
 * documented additions; test/support/knowledge-spec.ts holds both and the test comparing them.
 */
import type { KnowledgeComponent } from '../components/component.js';
import { RuntimeError } from '../errors.js';
import type { ChunkerType } from './chunkers/list.js';
import { CHUNKERS } from './chunkers/registry.js';
import { isConfigurableKnowledge, type ConfigurableKnowledge } from './configurable.js';
import type { VectorDbInfo } from './options.js';
import type { Reader } from './readers/reader.js';
import { ReaderRegistry } from './readers/registry.js';

export interface KnowledgeConfig {
  readers?: Record<string, { id: string; name?: string | null | undefined; description?: string | null | undefined; chunkers?: string[] | null | undefined }> | null | undefined;
  readersForType?: Record<string, string[]> | null | undefined;
  chunkers?: Record<string, { key: string; name?: string | null | undefined; description?: string | null | undefined; metadata?: Record<string, unknown> | null | undefined }> | null | undefined;
  filters?: string[] | null | undefined;
  vector_dbs?: VectorDbInfo[] | null | undefined;
  remote_content_sources?: { id: string; name: string; type: string; metadata?: Record<string, unknown> | null | undefined; prefix?: string | null | undefined }[] | null | undefined;
}

/**
 * The hosted knowledge bases a config request selects: all, or the one named, or those stored
 * in one database (`defaultDbId` is the runtime's own, for bases that name none).
 */
export function selectConfigurable(
  hosted: readonly KnowledgeComponent[],
  query: { knowledgeId?: string | undefined; dbId?: string | undefined },
  defaultDbId: string,
): (KnowledgeComponent & ConfigurableKnowledge)[] {
  let selected = hosted;
  if (query.knowledgeId !== undefined) {
    selected = selected.filter((k) => k.id === query.knowledgeId);
    if (selected.length === 0) throw new RuntimeError('NOT_FOUND', `Knowledge base "${query.knowledgeId}" not found`);
  }
  if (query.dbId !== undefined) {
    selected = selected.filter((k) => (k.dbId ?? defaultDbId) === query.dbId);
    if (selected.length === 0) throw new RuntimeError('NOT_FOUND', `No knowledge base is stored in database "${query.dbId}"`);
  }
  return selected.filter((k): k is KnowledgeComponent & ConfigurableKnowledge => isConfigurableKnowledge(k));
}

/** The config for these Knowledge instances; the built-in readers when there are none. `visibleTo` scopes the filter keys to a user and tenant. */
export async function knowledgeConfig(instances: readonly ConfigurableKnowledge[], visibleTo?: { userId?: string | undefined; tenantId?: string | undefined }): Promise<KnowledgeConfig> {
  const readers = new Map<string, Reader>();
  const registries = instances.length > 0 ? instances.map((k) => k.readers) : [new ReaderRegistry()];
  for (const registry of registries) for (const reader of registry.list()) if (!readers.has(reader.id)) readers.set(reader.id, reader);

  const readersForType: Record<string, string[]> = {};
  const chunkerKeys = new Set<ChunkerType>();
  for (const reader of readers.values()) {
    for (const type of reader.contentTypes) (readersForType[type] ??= []).push(reader.id);
    for (const chunker of reader.chunkers) chunkerKeys.add(chunker);
  }
  const filters = new Set<string>();
  for (const k of instances) for (const key of await k.filterKeys(visibleTo)) filters.add(key);

  return {
    readers: Object.fromEntries(
      [...readers.values()].map((r) => [r.id, { id: r.id, name: r.name, description: r.description, chunkers: [...r.chunkers] }]),
    ),
    readersForType,
    chunkers: Object.fromEntries([...chunkerKeys].map((key) => [key, { ...CHUNKERS[key], metadata: { ...CHUNKERS[key].metadata } }])),
    filters: [...filters].sort(),
    vector_dbs: instances.map((k) => k.vectorDb()),
    // The spec's RemoteContentSource: every source of every instance selected.
    remote_content_sources: instances.flatMap((k) => (k.contentSources ?? []).map((s) => ({ id: s.id, name: s.name, type: s.type, metadata: s.metadata, prefix: s.prefix }))),
  };
}
