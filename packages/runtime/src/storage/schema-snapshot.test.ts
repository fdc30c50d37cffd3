/**
 * The schema the shipped migration steps build, pinned in schema-snapshot.json: a fresh SQLite
 * file and a fresh PostgreSQL schema are migrated and read back through the catalogs, so a change
 * to how a shipped step's SQL is written cannot quietly change what it creates. Only the pinned
 * steps are applied, so adding a step needs no new snapshot. To pin the steps of today's list
 * (after adding one): `TEST_POSTGRES_URL=... npx tsx packages/runtime/test/support/write-schema-snapshot.ts`,
 * then review the diff.
 */
import { describe, expect, it } from 'vitest';
import { postgresTestDatabase, sqliteTestDatabase } from '../../test/support/databases.js';
import { pinned, readSnapshot, schemaOf } from '../../test/support/schema-snapshot.js';

describe('schema snapshot', () => {
  it('keeps every pinned step, with its version and name, so a database migrated before is up to date', () => {
    expect(pinned().map((m) => ({ version: m.version, name: m.name }))).toEqual(readSnapshot().ledger);
  });

  for (const kind of [sqliteTestDatabase, postgresTestDatabase]) {
    it.skipIf(!kind.available)(`builds the pinned schema on ${kind.kind}`, async () => {
      expect(await schemaOf(kind, pinned())).toEqual(readSnapshot()[kind.kind]);
    });
  }
});
