/**
 * A runtime in a process of its own hosting one knowledge base `docs` (SQLite at KNOWLEDGE_PATH,
 * no embedder, loopback URLs allowed), for measuring how responsive the runtime stays while it
 * ingests: nothing the test does to build and send its uploads runs on the measured event loop.
 * The KNOWLEDGE_MAX_* budgets and MAX_REQUEST_BODY_BYTES are read from its environment as in
 * production. Prints `listening <url>` once it accepts connections.
 *
 *   node --import tsx test/support/hostile-runtime.ts
 */
import { Knowledge } from '../../src/knowledge/knowledge.js';
import { SqliteVectorStore } from '../../src/knowledge/vector-stores/sqlite/store.js';
import { Runtime } from '../../src/runtime.js';
import { silentLogger } from '../../src/util/logger.js';

const store = new SqliteVectorStore({ path: process.env.KNOWLEDGE_PATH ?? ':memory:' });
const knowledge = new Knowledge({ id: 'docs', store, maxContentBytes: 60 * 1024 * 1024, urlFetch: { allowPrivateHosts: true } });
const runtime = new Runtime({ knowledge: [knowledge], env: process.env }, { logger: silentLogger });
const server = await runtime.serve({ host: '127.0.0.1' });
process.stdout.write(`listening ${server.url}\n`);
