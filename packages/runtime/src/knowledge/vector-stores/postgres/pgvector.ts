/**
 * @module knowledge/vector-stores/postgres/pgvector
 * pgvector as the PostgreSQL store's SQL names it: installed, schema-qualified, literals.
 *
 * Installed if needed; its type and cosine operator qualified with the schema it lives in (the
 * runtime's search_path may not include it); vectors written as its text literal.
 */
import { RuntimeError } from '../../../errors.js';
import type { Db } from '../../../storage/db.js';
import { isUniqueViolation } from '../../../storage/sql-errors.js';

export interface PgVector {
  /** `"schema".vector` */
  type: string;
  /** `OPERATOR("schema".<=>)`, cosine distance. */
  cosine: string;
  /** `"schema"`, for its operator classes. */
  schema: string;
}

/** Installs pgvector if needed (tolerating a concurrent install) and returns its schema-qualified names. */
export async function findPgvector(db: Db): Promise<PgVector> {
  const schema = await vectorSchema(db);
  const q = `"${schema.replace(/"/g, '""')}"`;
  return { type: `${q}.vector`, cosine: `OPERATOR(${q}.<=>)`, schema: q };
}

async function vectorSchema(db: Db): Promise<string> {
  const find = async () =>
    (await db.query<{ schema: string }>(`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`))[0]?.schema;
  let schema = await find();
  if (schema) return schema;
  try {
    await db.execute('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (e) {
    if (!isUniqueViolation(e)) {
      throw new RuntimeError('SERVICE_UNAVAILABLE', 'The pgvector extension is not available on this PostgreSQL server (CREATE EXTENSION vector failed)', { cause: e });
    }
  }
  schema = await find();
  if (!schema) throw new RuntimeError('SERVICE_UNAVAILABLE', 'The pgvector extension could not be found after CREATE EXTENSION vector');
  return schema;
}

/** Whether the installed pgvector (0.8+) can keep scanning an HNSW graph while a filter rejects candidates. */
export async function hasIterativeScan(db: Db): Promise<boolean> {
  const version = (await db.query<{ v: string }>(`SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'`))[0]?.v ?? '0';
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 0 || minor >= 8;
}

export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.join(',')}]`;
}
