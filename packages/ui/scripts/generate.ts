/** Writes src/api/schema.d.ts from the runtime's code: `npm run generate --workspace @svc/ui`. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generatedSchema, SCHEMA_FILE } from './schema.js';

const text = await generatedSchema();
writeFileSync(SCHEMA_FILE, text);
process.stdout.write(`wrote ${fileURLToPath(SCHEMA_FILE)} (${text.split('\n').length} lines)\n`);
