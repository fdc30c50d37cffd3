/**
 * The schema migrations build, read back through each database's catalogs, and the snapshot of
 * it that src/storage/schema-snapshot.test.ts compares against (see write-schema-snapshot.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Db, DbKind, Migration } from '../../src/storage/db.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { applyPending } from '../../src/storage/migrator.js';
import { postgresTestDatabase, sqliteTestDatabase, type TestDatabaseKind } from './databases.js';

const FILE = new URL('../../src/storage/schema-snapshot.json', import.meta.url);

export interface Snapshot {
  /** The pinned steps, as a database migrated by them records them in svc_migrations. */
  ledger: { version: number; name: string }[];
  sqlite: Record<string, unknown>;
  postgres: Record<string, unknown>;
}

export function readSnapshot(): Snapshot {
  return JSON.parse(readFileSync(FILE, 'utf8')) as Snapshot;
}

/** Whitespace is not schema: SQLite keeps a statement's text as written. */
function squeeze(sql: string | null): string | null {
  return sql === null ? null : sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();
}

async function sqliteSchema(db: Db): Promise<Record<string, unknown>> {
  const objects = await db.query<{ type: string; name: string; tbl_name: string; sql: string | null }>(
    "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
  );
  const tables: Record<string, unknown> = {};
  for (const table of objects.filter((o) => o.type === 'table')) {
    const columns = await db.query<{ cid: number; name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
      'SELECT * FROM pragma_table_info($1) ORDER BY cid',
      [table.name],
    );
    const indexList = await db.query<{ name: string; unique: number; origin: string; partial: number }>(
      'SELECT * FROM pragma_index_list($1) ORDER BY name',
      [table.name],
    );
    const indexes: string[] = [];
    for (const index of indexList) {
      const cols = await db.query<{ name: string }>('SELECT name FROM pragma_index_info($1) ORDER BY seqno', [index.name]);
      indexes.push(`${index.name} unique=${index.unique} origin=${index.origin} partial=${index.partial} (${cols.map((c) => c.name).join(', ')})`);
    }
    const keys = await db.query<{ from: string; table: string; to: string; on_update: string; on_delete: string; match: string }>(
      'SELECT * FROM pragma_foreign_key_list($1) ORDER BY id, seq',
      [table.name],
    );
    tables[table.name] = {
      columns: columns.map((c) => `${c.cid}:${c.name} ${c.type} notnull=${c.notnull} default=${c.dflt_value} pk=${c.pk}`),
      indexes,
      foreignKeys: keys.map((k) => `${k.from} -> ${k.table}(${k.to}) on_update=${k.on_update} on_delete=${k.on_delete} match=${k.match}`),
    };
  }
  return { objects: objects.map((o) => `${o.type} ${o.name} on ${o.tbl_name}: ${squeeze(o.sql)}`), tables };
}

async function postgresSchema(db: Db): Promise<Record<string, unknown>> {
  const [{ schema }] = (await db.query<{ schema: string }>('SELECT current_schema() AS schema')) as [{ schema: string }];
  // The test schema's random name appears in some definitions; it is not part of the schema.
  const local = (text: string) => text.split(`${schema}.`).join('');
  const columns = await db.query<{ table_name: string; column_name: string; ordinal_position: number; data_type: string; is_nullable: string; column_default: string | null }>(
    `SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default
     FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const indexes = await db.query<{ tablename: string; indexname: string; indexdef: string }>(
    'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY tablename, indexname',
    [schema],
  );
  const constraints = await db.query<{ table_name: string; conname: string; contype: string; definition: string }>(
    `SELECT c.conrelid::regclass::text AS table_name, c.conname, c.contype::text AS contype, pg_get_constraintdef(c.oid) AS definition
     FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 ORDER BY 1, 2`,
    [schema],
  );
  const tables: Record<string, { columns: string[]; indexes: string[]; constraints: string[] }> = {};
  const table = (name: string) => (tables[local(name)] ??= { columns: [], indexes: [], constraints: [] });
  for (const c of columns) {
    table(c.table_name).columns.push(`${c.ordinal_position}:${c.column_name} ${c.data_type} nullable=${c.is_nullable} default=${c.column_default}`);
  }
  for (const i of indexes) table(i.tablename).indexes.push(local(i.indexdef));
  for (const c of constraints) table(c.table_name).constraints.push(`${c.conname} ${c.contype}: ${local(c.definition)}`);
  return { tables };
}

/** Today's steps that the snapshot pins. */
export function pinned(): Migration[] {
  const { ledger } = readSnapshot();
  return MIGRATIONS.filter((m) => ledger.some((p) => p.version === m.version));
}

const READERS: Record<DbKind, (db: Db) => Promise<Record<string, unknown>>> = { sqlite: sqliteSchema, postgres: postgresSchema };

/** Migrates a fresh database of `kind` with `steps` and reads its schema. */
export async function schemaOf(kind: TestDatabaseKind, steps: readonly Migration[]): Promise<Record<string, unknown>> {
  const database = await kind.create();
  const db = database.open();
  try {
    await db.transaction((tx) => applyPending(kind.kind, tx, steps));
    return await READERS[kind.kind](db);
  } finally {
    await db.close();
    await database.cleanup();
  }
}

/** Pins the schema of every step in today's list (both stores; PostgreSQL must be reachable). */
export async function writeSnapshot(): Promise<Snapshot> {
  if (!postgresTestDatabase.available) throw new Error('Writing the schema snapshot needs TEST_POSTGRES_URL');
  const snapshot: Snapshot = {
    ledger: MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    sqlite: await schemaOf(sqliteTestDatabase, MIGRATIONS),
    postgres: await schemaOf(postgresTestDatabase, MIGRATIONS),
  };
  writeFileSync(FILE, `${JSON.stringify(snapshot, null, 2)}\n`);
  return snapshot;
}
