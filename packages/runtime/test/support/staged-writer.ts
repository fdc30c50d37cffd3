/**
 * A process that writes one large content version into a SQLite knowledge store and keeps
 * going until it is killed (knowledge-staged-writes.test.ts kills it with SIGKILL mid-write).
 *   node --import tsx staged-writer.ts <store path> <content id> <chunks>
 */
import { SqliteVectorStore } from '../../src/knowledge/vector-stores/sqlite/store.js';

const [path, contentId, count] = process.argv.slice(2);
const store = new SqliteVectorStore({ path: path! });
await store.create();
const chunks = Array.from({ length: Number(count) }, (_, i) => ({
  id: `new_${i}`,
  content: `newword chunk ${i}`,
  meta_data: { chunk: i + 1 },
  filters: {},
  embedding: Array.from({ length: 16 }, (_unused, d) => Math.sin(i + d)),
}));
process.stdout.write('WRITING\n');
await store.upsert(contentId!, chunks, 'test:sine');
process.stdout.write('DONE\n');
