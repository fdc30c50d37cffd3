/**
 * A process that writes one large content version into a knowledge store and keeps going until
 * it is killed (knowledge-staged-writes.test.ts and knowledge-replacing-writes.test.ts kill it
 * with SIGKILL mid-write), replacing the contents listed in the optional last argument
 * (comma-separated). The store is a SQLite file, or PostgreSQL for a postgres:// URL.
 *   node --import tsx staged-writer.ts <store path or URL> <content id> <chunks> [<replaced ids>]
 */
import { PostgresVectorStore } from '../../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../../src/knowledge/vector-stores/sqlite/store.js';
import { openDb } from '../../src/storage/open-db.js';

const [path, contentId, count, replaces] = process.argv.slice(2);
const store = path!.startsWith('postgres') ? new PostgresVectorStore({ db: openDb(path) }) : new SqliteVectorStore({ path: path! });
await store.create();
const chunks = Array.from({ length: Number(count) }, (_, i) => ({
  id: `new_${i}`,
  content: `newword chunk ${i}`,
  meta_data: { chunk: i + 1 },
  filters: {},
  embedding: Array.from({ length: 16 }, (_unused, d) => Math.sin(i + d)),
}));
process.stdout.write('WRITING\n');
await store.upsert(contentId!, chunks, 'test:sine', {}, { replaces: replaces ? replaces.split(',') : [] });
process.stdout.write('DONE\n');
