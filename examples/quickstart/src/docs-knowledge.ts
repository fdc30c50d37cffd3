/**
 * The quickstart's knowledge base: the markdown files in `docs/`, split at `#`/`##` headings,
 * in a real `Knowledge` on an in-memory SQLite store. The docs are re-read at every start, so
 * nothing needs to persist between runs.
 *
 * With an embedder (the quickstart's: the local sentence encoder with no key, else OPENAI_* or
 * OLLAMA_EMBEDDING_MODEL) searches are hybrid; without one, by keyword (SQLite FTS5). If the
 * embedder fails (a chat-only OpenAI-compatible server, a local model that cannot load), it
 * says so once and falls back to keyword search, so the demo answers `search_knowledge_base`
 * whatever happens.
 *
 * Loading is asynchronous and the runtime is built synchronously, so this wraps the
 * Knowledge: searches wait until the docs are in.
 *
 * It is read-only: it is not a `Knowledge` to the content routes, so uploads go to the
 * quickstart's writable base (whatever was added here would vanish at the next start anyway).
 * It reads markdown only, and `/knowledge/config?knowledge_id=runtime-docs` says so.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  Knowledge,
  MarkdownChunker,
  MarkdownReader,
  SqliteVectorStore,
  type ConfigurableKnowledge,
  type Embedder,
  type KnowledgeHit,
  type ReaderRegistry,
  type SearchableKnowledge,
  type VectorDbInfo,
} from '@svc/runtime';

export interface DocsKnowledgeOptions {
  id: string;
  name: string;
  description: string;
  embedder?: Embedder | undefined;
  /** Where the fallback notice goes; default stderr. */
  warn?: (message: string) => void;
}

export class DocsKnowledge implements SearchableKnowledge, ConfigurableKnowledge {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  private knowledge: Knowledge;
  private readonly loaded: Promise<void>;

  private constructor(
    private readonly dir: string,
    private readonly options: DocsKnowledgeOptions,
  ) {
    this.id = options.id;
    this.name = options.name;
    this.description = options.description;
    this.knowledge = this.create(options.embedder);
    this.loaded = this.load();
    // A failure is reported by the searches that wait on it; this only avoids an unhandled rejection.
    this.loaded.catch(() => {});
  }

  static fromDirectory(dir: string, options: DocsKnowledgeOptions): DocsKnowledge {
    return new DocsKnowledge(dir, options);
  }

  private create(embedder: Embedder | undefined): Knowledge {
    return new Knowledge({
      id: this.id,
      name: this.name,
      description: this.description,
      store: new SqliteVectorStore({ path: ':memory:', id: `${this.id}-index`, name: 'SQLite (in memory)' }),
      embedder,
      readers: [new MarkdownReader()],
    });
  }

  private async insertAll(): Promise<void> {
    const files = readdirSync(this.dir).filter((f) => f.endsWith('.md')).sort();
    for (const file of files) {
      await this.knowledge.insert({ path: join(this.dir, file), chunker: new MarkdownChunker({ splitOnHeadings: 2 }) });
    }
  }

  private async load(): Promise<void> {
    try {
      await this.insertAll();
    } catch (error) {
      if (!this.knowledge.embedder) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      (this.options.warn ?? ((m) => process.stderr.write(`${m}\n`)))(`runtime-docs: embeddings failed (${reason}); using keyword search`);
      await this.knowledge.store.close();
      this.knowledge = this.create(undefined);
      await this.insertAll();
    }
  }

  /** Resolves once the docs are indexed (rejects if they could not be). */
  ready(): Promise<void> {
    return this.loaded;
  }

  /** The in-memory store is a database of its own. */
  get dbId(): string | undefined {
    return this.knowledge.dbId;
  }

  get readers(): ReaderRegistry {
    return this.knowledge.readers;
  }

  vectorDb(): VectorDbInfo {
    return this.knowledge.vectorDb();
  }

  async filterKeys(): Promise<string[]> {
    await this.loaded;
    return this.knowledge.filterKeys();
  }

  describe(): Record<string, unknown> {
    return this.knowledge.describe();
  }

  /**
   * Hits are named `file.md › Heading`, so answers can cite the section they came from. The
   * docs are everyone's: a user id changes nothing; the search type used is reported on.
   */
  async search(query: string, options: { limit?: number; onSearchType?: (searchType: string) => void } = {}): Promise<(KnowledgeHit & { name: string })[]> {
    await this.loaded;
    const hits = await this.knowledge.search(query, { limit: options.limit ?? 5, ...(options.onSearchType ? { onSearchType: options.onSearchType } : {}) });
    return hits.map((hit) => {
      const heading = /^#{1,2}\s+(.+)$/m.exec(hit.content)?.[1]?.trim();
      const file = `${hit.name ?? 'docs'}.md`;
      return { ...hit, name: heading ? `${file} › ${heading}` : file };
    });
  }
}
