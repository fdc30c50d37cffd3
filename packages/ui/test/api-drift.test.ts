/**
 * The panel's API types (src/api/schema.d.ts) are generated from the runtime's OpenAPI document
 * and checked in; this fails when a route or schema changed without regenerating them, so the
 * panel cannot drift from the API it calls.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedSchema, SCHEMA_FILE } from '../scripts/schema.js';

describe('the panel API client', () => {
  it('has types generated from the current OpenAPI document (npm run generate --workspace @svc/ui)', async () => {
    const checkedIn = readFileSync(SCHEMA_FILE, 'utf8');
    const current = await generatedSchema();
    expect(checkedIn === current, 'src/api/schema.d.ts is stale: run `npm run generate --workspace @svc/ui`').toBe(true);
  });
});
