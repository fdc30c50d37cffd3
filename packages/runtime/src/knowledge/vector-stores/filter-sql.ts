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

/** PostgreSQL: the same conditions over the chunk table's columns, with `$n` parameters appended to `params`. */
export function postgresConditions(filter: Filter | undefined, visibleTo: ChunkScope | undefined, params: SqlValue[]): string {
  let sql = filter ? ` AND ${postgresFilter(filter, 'meta_data', params)}` : '';
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
