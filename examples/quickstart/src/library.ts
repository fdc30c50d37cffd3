/**
 * The quickstart's writable knowledge base, `library`: whatever you upload to
 * `POST /knowledge/content` (files of every format the readers know, URLs, search topics), with
 * every reader and chunker. It is a plain `Knowledge` on the embedded SQLite vector store, in a
 * file of its own next to the runtime's database (`data/knowledge.db` by default), so uploads
 * survive restarts. Hybrid search with no key (the local sentence encoder embeds the chunks),
 * or with the embedder the environment names.
 *
 * It is the only hosted base that takes content (the bundled docs are read-only), so uploads and
 * searches need no `knowledge_id`.
 */
import { dirname, join, resolve } from 'node:path';
import { Knowledge, SqliteDb, SqliteVectorStore, defaultReaders, parseDatabaseUrl, remoteSourcesFromEnvironment, type Db, type Embedder } from '@svc/runtime';

export const LIBRARY_ID = 'library';

/** The file name of the library's store, beside the runtime's SQLite file. */
export const LIBRARY_FILE = 'knowledge.db';

type Environment = Record<string, string | undefined>;

/**
 * Where the library's vector store lives: beside the runtime's SQLite database (DATABASE_URL, or
 * the `db` the runtime is given), in memory when that database is, and under `./data` when the
 * runtime's database is PostgreSQL.
 */
export function libraryStorePath(db: Db | undefined, env: Environment, cwd = process.cwd()): string {
  if (db !== undefined) {
    if (db instanceof SqliteDb) return db.path === ':memory:' ? ':memory:' : join(dirname(resolve(cwd, db.path)), LIBRARY_FILE);
    return resolve(cwd, 'data', LIBRARY_FILE);
  }
  const target = parseDatabaseUrl(env.DATABASE_URL, cwd);
  if (target.kind === 'postgres') return resolve(cwd, 'data', LIBRARY_FILE);
  return target.path === ':memory:' ? ':memory:' : join(dirname(target.path), LIBRARY_FILE);
}

export interface LibraryOptions {
  /** The runtime's database, when given in code; else DATABASE_URL decides (see libraryStorePath). */
  db?: Db | undefined;
  env: Environment;
  embedder?: Embedder | undefined;
}

export function createLibrary(options: LibraryOptions): Knowledge {
  // Every reader; the source readers take their keys from the same environment as the runtime.
  // Read first: a malformed setting fails the start before the store's file is created.
  const readers = defaultReaders(options.env);
  // Remote places to browse and ingest from (KNOWLEDGE_CONTENT_SOURCES); a bad entry fails the start too.
  const contentSources = remoteSourcesFromEnvironment(options.env);
  return new Knowledge({
    id: LIBRARY_ID,
    name: 'Library',
    description: 'What you upload: files (PDF, Office, CSV, JSON, markdown, text, HTML...), web pages, videos and search topics',
    store: new SqliteVectorStore({ path: libraryStorePath(options.db, options.env), id: `${LIBRARY_ID}-store`, name: 'SQLite' }),
    embedder: options.embedder,
    readers,
    contentSources,
  });
}
