/**
 * @module knowledge/vector-stores/identifiers
 * Table names are interpolated into SQL, so they are checked against a strict pattern.
 */
import { ConfigurationError } from '../../errors.js';

const TABLE = /^[a-z_][a-z0-9_]{0,40}$/;

/** The table prefix a store takes when given none. */
export const DEFAULT_TABLE = 'svc_knowledge';

export function checkTableName(table: string): string {
  if (!TABLE.test(table)) throw new ConfigurationError(`Knowledge table "${table}" must match ${TABLE} (lower-case letters, digits, "_")`);
  return table;
}
