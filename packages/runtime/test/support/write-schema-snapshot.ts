/**
 * Pins the schema of today's migration steps in src/storage/schema-snapshot.json, after a new
 * step is added: `TEST_POSTGRES_URL=postgres://... npx tsx packages/runtime/test/support/write-schema-snapshot.ts`.
 */
import { writeSnapshot } from './schema-snapshot.js';

const snapshot = await writeSnapshot();
process.stdout.write(`pinned ${snapshot.ledger.length} migration steps; review the diff of schema-snapshot.json\n`);
