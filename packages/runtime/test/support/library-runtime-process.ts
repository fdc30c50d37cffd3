/**
 * A runtime in a process of its own hosting one knowledge base, `library`, built as the
 * quickstart builds its own: every reader, and the embedder the environment picks
 * (`embedderFromEnvironment`: the local sentence encoder when no key is set). Its store is the
 * SQLite file KNOWLEDGE_PATH, else a PostgreSQL store in the database of DATABASE_URL. Reads
 * DATABASE_URL and PORT like any runtime; prints `listening <url>` once it accepts connections.
 *
 *   node --import tsx test/support/library-runtime-process.ts
 */
import { Knowledge } from '../../src/knowledge/knowledge.js';
import { defaultReaders } from '../../src/knowledge/readers/registry.js';
import { PostgresVectorStore } from '../../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../../src/knowledge/vector-stores/sqlite/store.js';
import { embedderFromEnvironment } from '../../src/providers/from-environment.js';
import { Runtime } from '../../src/runtime.js';
import { openDb } from '../../src/storage/open-db.js';
import { silentLogger } from '../../src/util/logger.js';

const env = process.env;
const store = env.KNOWLEDGE_PATH
  ? new SqliteVectorStore({ path: env.KNOWLEDGE_PATH, id: 'library-store', name: 'SQLite' })
  : new PostgresVectorStore({ db: openDb(env.DATABASE_URL), table: 'kl_library', id: 'library-store', name: 'PostgreSQL' });
const library = new Knowledge({ id: 'library', store, embedder: embedderFromEnvironment(env), readers: defaultReaders(env) });
const runtime = new Runtime({ knowledge: [library], env }, { logger: silentLogger });
const server = await runtime.serve({ host: '127.0.0.1' });
process.stdout.write(`listening ${server.url}\n`);
