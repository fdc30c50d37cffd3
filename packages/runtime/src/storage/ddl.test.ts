import { describe, expect, it } from 'vitest';
import { ddlFor, sqliteDdl } from './ddl.js';

describe('sqliteDdl', () => {
  it('names 64-bit integers and byte strings as SQLite does', () => {
    expect(sqliteDdl('CREATE TABLE t (id BIGINT PRIMARY KEY, n INTEGER NOT NULL, b BYTEA, c bigint, d ByTeA)')).toBe(
      'CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, b BLOB, c INTEGER, d BLOB)',
    );
  });

  it('drops IF NOT EXISTS from ADD COLUMN only', () => {
    expect(sqliteDdl('ALTER TABLE t ADD COLUMN IF NOT EXISTS x TEXT')).toBe('ALTER TABLE t ADD COLUMN x TEXT');
    expect(sqliteDdl('alter table t add  column\n  if not exists x bigint')).toBe('alter table t ADD COLUMN x INTEGER');
    expect(sqliteDdl('CREATE TABLE IF NOT EXISTS t (x TEXT)')).toBe('CREATE TABLE IF NOT EXISTS t (x TEXT)');
    expect(sqliteDdl('CREATE INDEX IF NOT EXISTS i ON t (x) WHERE y IS NOT NULL')).toBe('CREATE INDEX IF NOT EXISTS i ON t (x) WHERE y IS NOT NULL');
  });

  it('leaves whole words only: names that contain a type name are not types', () => {
    const sql = 'CREATE TABLE bigint_log (bigints TEXT, my_bytea TEXT, bytea_ref TEXT)';
    expect(sqliteDdl(sql)).toBe(sql);
  });

  it('leaves quoted text, quoted names and comments as written', () => {
    expect(sqliteDdl(`CREATE TABLE t ("BIGINT" BIGINT, k TEXT DEFAULT 'BYTEA ''BIGINT''') -- a BIGINT note`)).toBe(
      `CREATE TABLE t ("BIGINT" INTEGER, k TEXT DEFAULT 'BYTEA ''BIGINT''') -- a BIGINT note`,
    );
    expect(sqliteDdl("CREATE INDEX i ON t (x) WHERE status = 'ADD COLUMN IF NOT EXISTS'")).toBe(
      "CREATE INDEX i ON t (x) WHERE status = 'ADD COLUMN IF NOT EXISTS'",
    );
  });

  it('keeps the layout, step separators included, so SQLite stores the text as written', () => {
    const sql = 'CREATE TABLE a (\n  x BIGINT NOT NULL\n)\n--;;\nALTER TABLE a ADD COLUMN IF NOT EXISTS y BYTEA';
    expect(sqliteDdl(sql)).toBe('CREATE TABLE a (\n  x INTEGER NOT NULL\n)\n--;;\nALTER TABLE a ADD COLUMN y BLOB');
  });
});

describe('ddlFor', () => {
  it('gives PostgreSQL the text as written and SQLite its translation', () => {
    const sql = 'ALTER TABLE t ADD COLUMN IF NOT EXISTS n BIGINT';
    expect(ddlFor('postgres', sql)).toBe(sql);
    expect(ddlFor('sqlite', sql)).toBe('ALTER TABLE t ADD COLUMN n INTEGER');
  });
});
