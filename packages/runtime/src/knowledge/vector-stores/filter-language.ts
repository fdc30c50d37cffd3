/**
 * @module knowledge/vector-stores/filter-language
 * The one metadata filter language of every store, in agno's JSON form:
 *   - a plain object `{key: value, ...}`: all equal (type-exact: "1", 1 and true differ);
 *   - a list of expressions, all of which must hold:
 *     `{"op": "EQ"|"NEQ"|"GT"|"GTE"|"LT"|"LTE"|"CONTAINS"|"STARTSWITH", "key": k, "value": v}`,
 *     `{"op": "IN", "key": k, "values": [...]}`,
 *     `{"op": "AND"|"OR", "conditions": [...]}`, `{"op": "NOT", "condition": {...}}`.
 * Parsed once into a small tree that each store compiles into its own SQL (filter-sql.ts), so
 * a filter means the same on SQLite and PostgreSQL. A key that no stored chunk has is refused by
 * the Knowledge with the valid keys, rather than silently matching nothing.
 */
import { badRequest } from '../../errors.js';

export type FilterScalar = string | number | boolean | null;

export type Comparison = 'EQ' | 'NEQ' | 'GT' | 'GTE' | 'LT' | 'LTE' | 'CONTAINS' | 'STARTSWITH';

export type Filter =
  | { op: Comparison; key: string; value: FilterScalar }
  | { op: 'IN'; key: string; values: FilterScalar[] }
  | { op: 'AND' | 'OR'; conditions: Filter[] }
  | { op: 'NOT'; condition: Filter };

/** What callers may send: a plain object of equalities or a list of expressions. */
export type FilterInput = Record<string, unknown> | unknown[];

const KEY = /^[\p{L}\p{N}_.-]{1,100}$/u;
const COMPARISONS = new Set<string>(['EQ', 'NEQ', 'GT', 'GTE', 'LT', 'LTE', 'CONTAINS', 'STARTSWITH']);
/** As agno: deeper nesting is refused. */
export const MAX_FILTER_DEPTH = 10;
const MAX_IN_VALUES = 1000;

function checkKey(key: unknown, where: string): string {
  if (typeof key !== 'string' || !KEY.test(key)) throw badRequest(`${where}: filter key ${JSON.stringify(key)} must be 1-100 letters, digits, "_", "." or "-"`);
  return key;
}

function checkScalar(value: unknown, where: string): FilterScalar {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw badRequest(`${where}: a filter value must be a string, a finite number, a boolean or null`);
}

function parseExpression(input: unknown, where: string, depth: number): Filter {
  if (depth > MAX_FILTER_DEPTH) throw badRequest(`filters are nested deeper than ${MAX_FILTER_DEPTH} levels`);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw badRequest(`${where}: a filter expression must be an object with "op"`);
  const e = input as Record<string, unknown>;
  const op = typeof e.op === 'string' ? e.op.toUpperCase() : undefined;
  if (op === undefined) throw badRequest(`${where}: a filter expression needs "op" (EQ, NEQ, GT, GTE, LT, LTE, IN, CONTAINS, STARTSWITH, AND, OR, NOT)`);
  if (COMPARISONS.has(op)) {
    const value = checkScalar(e.value, where);
    if ((op === 'CONTAINS' || op === 'STARTSWITH') && typeof value !== 'string') throw badRequest(`${where}: ${op} compares with a string`);
    if (['GT', 'GTE', 'LT', 'LTE'].includes(op) && typeof value !== 'number' && typeof value !== 'string') {
      throw badRequest(`${where}: ${op} compares with a number or a string`);
    }
    return { op: op as Comparison, key: checkKey(e.key, where), value };
  }
  if (op === 'IN') {
    if (!Array.isArray(e.values) || e.values.length === 0 || e.values.length > MAX_IN_VALUES) {
      throw badRequest(`${where}: IN needs "values", a list of 1 to ${MAX_IN_VALUES} values`);
    }
    return { op, key: checkKey(e.key, where), values: e.values.map((v, i) => checkScalar(v, `${where}.values[${i}]`)) };
  }
  if (op === 'AND' || op === 'OR') {
    if (!Array.isArray(e.conditions) || e.conditions.length === 0) throw badRequest(`${where}: ${op} needs "conditions", a non-empty list`);
    return { op, conditions: e.conditions.map((c, i) => parseExpression(c, `${where}.conditions[${i}]`, depth + 1)) };
  }
  if (op === 'NOT') return { op, condition: parseExpression(e.condition, `${where}.condition`, depth + 1) };
  throw badRequest(`${where}: unknown filter operator "${String(e.op)}"`);
}

/** Parses either form; undefined for no filter at all. */
export function parseFilters(input: unknown): Filter | undefined {
  if (input === undefined || input === null) return undefined;
  if (Array.isArray(input)) {
    if (input.length === 0) return undefined;
    return { op: 'AND', conditions: input.map((e, i) => parseExpression(e, `filters[${i}]`, 1)) };
  }
  if (typeof input !== 'object') throw badRequest('filters must be an object of metadata key -> value, or a list of filter expressions');
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 0) return undefined;
  return { op: 'AND', conditions: entries.map(([key, value]) => ({ op: 'EQ' as const, key: checkKey(key, 'filters'), value: checkScalar(value, `filters.${key}`) })) };
}

/** Every metadata key a filter names. */
export function filterKeysOf(filter: Filter | undefined, into = new Set<string>()): Set<string> {
  if (!filter) return into;
  if ('key' in filter) into.add(filter.key);
  else if (filter.op === 'NOT') filterKeysOf(filter.condition, into);
  else for (const c of filter.conditions) filterKeysOf(c, into);
  return into;
}
