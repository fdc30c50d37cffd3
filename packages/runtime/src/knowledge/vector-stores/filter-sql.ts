/**
 * @module knowledge/vector-stores/filter-sql
 * Compiles a parsed filter (filter-language.ts) into each store's SQL over a chunk's metadata.
 * Every comparison is type-exact and is false (never NULL) when the key is missing or holds
 * another type, so NOT and OR behave as written; CASE guards every cast, since SQL does not
 * promise to evaluate AND from left to right. Strings compare by code point on both stores.
 * With the filter goes the owner scope (shared chunks and the user's own) and the tenant's (its
 * chunks only, chunk-scope.ts), in the same WHERE,
 * so `limit` is still met whenever that many chunks are visible.
 */
import type { ChunkScope } from './chunk-scope.js';
import type { SqlValue } from '../../storage/db.js';
import type { Comparison, Filter, FilterScalar } from './filter-language.js';

type SqliteBind = string | number | null;

/**
 * SQLite: the `AND ...` conditions of a read over chunk rows `c`: the filter over their metadata
 * and the owner scope, with `?` parameters.
 */
export function sqliteConditions(filter: Filter | undefined, visibleTo: ChunkScope | undefined): { sql: string; params: SqliteBind[] } {
  const sql: string[] = [];
  const params: SqliteBind[] = [];
  if (filter) {
    const compiled = sqliteFilter(filter, 'c.meta_data');
    sql.push(` AND ${compiled.sql}`);
    params.push(...compiled.params);
  }
  if (visibleTo?.user !== undefined) {
    sql.push(' AND (c.user_id IS NULL OR c.user_id = ?)');
    params.push(visibleTo.user);
  }
  if (visibleTo?.tenant !== undefined) {
    sql.push(' AND c.tenant_id = ?');
    params.push(visibleTo.tenant);
  }
  return { sql: sql.join(''), params };
}

/**
 * PostgreSQL: the same conditions over the chunk table's columns, with `$n` parameters appended
 * to `params`. A filter's equalities are also given as JSONB containment (`postgresContainment`),
 * which the GIN index on the metadata serves; the scope's columns have btree indexes
 * (postgres/narrowing-indexes.ts).
 */
export function postgresConditions(filter: Filter | undefined, visibleTo: ChunkScope | undefined, params: SqlValue[]): string {
  let sql = '';
  if (filter) {
    const indexed = postgresContainment(filter, 'meta_data', params);
    // A filter of equalities alone is its containment (values are scalars): the one test, not two per row.
    if (indexed && containmentIsExact(filter)) sql = ` AND ${indexed}`;
    else sql = `${indexed ? ` AND ${indexed}` : ''} AND ${postgresFilter(filter, 'meta_data', params)}`;
  }
  if (visibleTo?.user !== undefined) {
    params.push(visibleTo.user);
    sql += ` AND (user_id IS NULL OR user_id = $${params.length})`;
  }
  if (visibleTo?.tenant !== undefined) {
    params.push(visibleTo.tenant);
    sql += ` AND tenant_id = $${params.length}`;
  }
  return sql;
}

/** SQLite: `json_type`/`json_extract` on `column`, with `?` parameters. */
export function sqliteFilter(filter: Filter, column: string): { sql: string; params: SqliteBind[] } {
  const params: SqliteBind[] = [];
  const compile = (f: Filter): string => {
    if ('conditions' in f) return `(${f.conditions.map(compile).join(` ${f.op} `)})`;
    if ('condition' in f) return `(NOT ${compile(f.condition)})`;
    if ('values' in f) return `(${f.values.map((value) => compile({ op: 'EQ', key: f.key, value })).join(' OR ')})`;
    const path = `$."${f.key}"`;
    const type = () => {
      params.push(path);
      return `json_type(${column}, ?)`;
    };
    const value = () => {
      params.push(path);
      return `json_extract(${column}, ?)`;
    };
    return sqliteComparison(f.op, f.value, type, value, params);
  };
  return { sql: compile(filter), params };
}

function sqliteComparison(op: Comparison, v: FilterScalar, type: () => string, value: () => string, params: SqliteBind[]): string {
  if (op === 'NEQ') return `(NOT ${sqliteComparison('EQ', v, type, value, params)})`;
  if (v === null) return `(CASE WHEN ${type()} = 'null' THEN 1 ELSE 0 END)`;
  if (typeof v === 'boolean') return `(CASE WHEN ${type()} = '${v ? 'true' : 'false'}' THEN 1 ELSE 0 END)`;
  const isRightType = typeof v === 'number' ? `${type()} IN ('integer', 'real')` : `${type()} = 'text'`;
  let test: string;
  switch (op) {
    case 'CONTAINS':
      test = `instr(lower(${value()}), lower(?)) > 0`;
      params.push(v as string);
      break;
    case 'STARTSWITH':
      test = `substr(${value()}, 1, length(?)) = ?`;
      params.push(v as string, v as string);
      break;
    default:
      test = `${value()} ${SQL_OPERATOR[op]} ?`;
      params.push(v);
  }
  // Parameters are pushed in the order the placeholders appear: the type check comes first.
  return `(CASE WHEN ${isRightType} THEN (${test}) ELSE 0 END)`;
}

/**
 * PostgreSQL: a condition that `filter` implies, in JSONB containment (`column @> '{"k": v}'`),
 * which a GIN (`jsonb_path_ops`) index answers; undefined when the filter implies none. Added
 * beside the filter (never instead of it), so the rows are the same and the index can find them.
 * An equality on a scalar holds exactly when the object contains that key with that value
 * (JSONB compares numbers by value in both, `7` = `7.0`; a key holding an array of the value
 * is neither equal nor contained below the top level); IN is an OR of equalities; AND implies
 * what any of its conditions implies, OR only what every one of them does; NOT and the other
 * comparisons imply nothing here. filter-sql.test.ts checks both against each other on
 * PostgreSQL.
 */
export function postgresContainment(filter: Filter, column: string, params: SqlValue[]): string | undefined {
  // Decided first, then written: a part left out (an OR with a range in it) adds no parameter.
  type Implied = string | { join: 'AND' | 'OR'; parts: Implied[] };
  const implied = (f: Filter): Implied | undefined => {
    if ('conditions' in f) {
      const parts = f.conditions.map(implied);
      const known = parts.filter((p): p is Implied => p !== undefined);
      if (f.op === 'AND') return known.length === 0 ? undefined : known.length === 1 ? known[0] : { join: 'AND', parts: known };
      return known.length < parts.length ? undefined : { join: 'OR', parts: known };
    }
    if ('condition' in f) return undefined;
    if ('values' in f) return implied({ op: 'OR', conditions: f.values.map((value) => ({ op: 'EQ', key: f.key, value })) });
    return f.op === 'EQ' ? JSON.stringify({ [f.key]: f.value }) : undefined;
  };
  const write = (i: Implied): string => {
    if (typeof i !== 'string') return `(${i.parts.map(write).join(` ${i.join} `)})`;
    params.push(i);
    return `${column} @> $${params.length}::jsonb`;
  };
  const found = implied(filter);
  return found === undefined ? undefined : write(found);
}

/**
 * Whether the containment `postgresContainment` writes for `filter` selects exactly its rows,
 * not only a superset: a filter made of EQ and IN (under AND and OR) alone. Filter values are
 * scalars, and `{"k": v}` is contained in a row's metadata exactly when its `k` equals `v`, type
 * for type as EQ compares (7 = 7.0, "7" is no 7, [7] is no 7: tested on PostgreSQL).
 */
export function containmentIsExact(filter: Filter): boolean {
  if ('conditions' in filter) return filter.conditions.every(containmentIsExact);
  if ('condition' in filter) return false;
  return 'values' in filter || filter.op === 'EQ';
}

/** PostgreSQL: JSONB operators on `column`, with `$n` parameters appended to `params`. */
export function postgresFilter(filter: Filter, column: string, params: SqlValue[]): string {
  const param = (value: SqlValue): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const compile = (f: Filter): string => {
    if ('conditions' in f) return `(${f.conditions.map(compile).join(` ${f.op} `)})`;
    if ('condition' in f) return `(NOT ${compile(f.condition)})`;
    if ('values' in f) return `(${f.values.map((value) => compile({ op: 'EQ', key: f.key, value })).join(' OR ')})`;
    const key = param(f.key);
    const v = f.value;
    const eq = () => `COALESCE(${column} -> ${key}::text = ${param(JSON.stringify(v))}::jsonb, false)`;
    if (f.op === 'EQ') return eq();
    if (f.op === 'NEQ') return `(NOT ${eq()})`;
    const type = `jsonb_typeof(${column} -> ${key}::text)`;
    const text = `(${column} ->> ${key}::text)`;
    if (f.op === 'CONTAINS') return `(CASE WHEN ${type} = 'string' THEN strpos(lower(${text}), lower(${param(v as string)}::text)) > 0 ELSE false END)`;
    if (f.op === 'STARTSWITH') {
      const p = param(v as string);
      return `(CASE WHEN ${type} = 'string' THEN left(${text}, length(${p}::text)) = ${p}::text ELSE false END)`;
    }
    if (typeof v === 'number') return `(CASE WHEN ${type} = 'number' THEN ${text}::numeric ${SQL_OPERATOR[f.op]} ${param(v)}::numeric ELSE false END)`;
    return `(CASE WHEN ${type} = 'string' THEN ${text} COLLATE "C" ${SQL_OPERATOR[f.op]} ${param(v as string)}::text ELSE false END)`;
  };
  return compile(filter);
}

const SQL_OPERATOR: Record<'EQ' | 'GT' | 'GTE' | 'LT' | 'LTE', string> = { EQ: '=', GT: '>', GTE: '>=', LT: '<', LTE: '<=' };
