/**
 * @module knowledge/vector-stores/postgres/schema
 * The PostgreSQL store's tables and indexes, created or brought up to date on open.
 *
 * Chunks (a `vector` column of any dimension, kept in the row: inline-vectors.ts; JSONB
 * metadata, a generated `tsvector` with a GIN index, the owner columns), `{t}_meta`, the reindex staging table; and, when the stored
 * vectors' dimension is known, the HNSW index searches use (built in the background when
 * missing: hnsw-build.ts).
 */
import { recordedDimensions } from '../embedder-record.js';
import type { PostgresStoreContext } from './context.js';
import { prepareHnsw } from './hnsw-build.js';
import { inlineNewTable } from './inline-vectors.js';
import { findPgvector, hasIterativeScan } from './pgvector.js';

export async function prepareTables(ctx: PostgresStoreContext): Promise<void> {
  const pgvector = await findPgvector(ctx.db);
  ctx.pgvector = pgvector;
  const t = ctx.t;
  const lang = ctx.language;
  const [existing] = await ctx.db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`${t}_chunks`]);
  await ctx.db.execute(`CREATE TABLE IF NOT EXISTS ${t}_chunks (
      content_id TEXT NOT NULL,
      chunk_id TEXT NOT NULL,
      name TEXT,
      content TEXT NOT NULL,
      meta_data JSONB NOT NULL,
      filters JSONB NOT NULL,
      embedding ${pgvector.type},
      fts TSVECTOR GENERATED ALWAYS AS (to_tsvector('${lang}', content)) STORED,
      created_at BIGINT NOT NULL,
      knowledge_id TEXT,
      user_id TEXT,
      tenant_id TEXT,
      PRIMARY KEY (content_id, chunk_id)
    )`);
  // Vectors in the row, not in TOAST (inline-vectors.ts); an existing table is switched by the build.
  if (!existing?.found) await inlineNewTable(ctx);
  await addOwnerColumns(ctx);
  // Looked up first: CREATE INDEX takes its lock before it sees the index exists, and that lock
  // would deadlock with another runtime's concurrent HNSW build, which waits for this transaction.
  const [fts] = await ctx.db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`${t}_chunks_fts`]);
  if (!fts?.found) await ctx.db.execute(`CREATE INDEX IF NOT EXISTS ${t}_chunks_fts ON ${t}_chunks USING GIN (fts)`);
  await ctx.db.execute(`CREATE TABLE IF NOT EXISTS ${t}_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  // Vectors of a reindex in progress (see ../reindex.ts); the type has no dimension, so a reindex may change it.
  await ctx.db.execute(`CREATE TABLE IF NOT EXISTS ${t}_reindex (
      content_id TEXT NOT NULL,
      chunk_id TEXT NOT NULL,
      embedding ${pgvector.type} NOT NULL,
      PRIMARY KEY (content_id, chunk_id)
    )`);
  if (ctx.hnsw) {
    ctx.iterativeScan = await hasIterativeScan(ctx.db);
    const stored = (await ctx.db.query<{ value: string }>(`SELECT value FROM ${t}_meta WHERE key = 'embedder'`))[0]?.value;
    const dims = recordedDimensions(stored);
    if (dims !== undefined) await prepareHnsw(ctx, dims);
  }
}

/**
 * Tables made before chunks carried their owner (and tenant) get the columns; old rows stay
 * shared (NULL) and of no tenant.
 * Looked up first, because ALTER TABLE locks the table against searches even when it has
 * nothing to do.
 */
async function addOwnerColumns(ctx: PostgresStoreContext): Promise<void> {
  const table = `${ctx.t}_chunks`;
  const present = await ctx.db.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname IN ('knowledge_id', 'user_id', 'tenant_id') AND NOT attisdropped`,
    [table],
  );
  if (present.length < 3) {
    await ctx.db.execute(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS knowledge_id TEXT, ADD COLUMN IF NOT EXISTS user_id TEXT, ADD COLUMN IF NOT EXISTS tenant_id TEXT`);
  }
}
