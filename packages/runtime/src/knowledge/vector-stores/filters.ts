/**
 * @module knowledge/vector-stores/filters
 * Validation of metadata filters, shared by the stores, and the keyword-query tokens both
 * stores build their full-text queries from (user text never reaches MATCH or to_tsquery raw).
 */
import { badRequest } from '../errors.js';
import type { MetadataFilters } from './vector-store.js';

const KEY = /^[\p{L}\p{N}_.-]{1,100}$/u;

export function checkFilters(filters: unknown): MetadataFilters {
  if (filters === undefined || filters === null) return {};
  if (typeof filters !== 'object' || Array.isArray(filters)) throw badRequest('filters must be an object of metadata key -> value');
  const out: MetadataFilters = {};
  for (const [key, value] of Object.entries(filters)) {
    if (!KEY.test(key)) throw badRequest(`filter key "${key}" must be 1-100 letters, digits, "_", "." or "-"`);
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      throw badRequest(`filter "${key}" must be a string, number, boolean or null`);
    }
    if (typeof value === 'number' && !Number.isFinite(value)) throw badRequest(`filter "${key}" must be a finite number`);
    out[key] = value as MetadataFilters[string];
  }
  return out;
}

/** Word tokens of a query, deduplicated; punctuation and operators are dropped. */
export function queryTokens(query: string): string[] {
  const tokens = query.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(tokens)].slice(0, 64);
}
