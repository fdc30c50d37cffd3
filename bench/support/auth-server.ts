// A runtime on a scratch SQLite file whose auth comes from the environment (JWT_VERIFICATION_KEY,
// AUTHORIZATION_ENABLED...), so the same route can be measured open and protected.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runtime } from '@svc/runtime';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-auth-'));
const runtime = new Runtime({ name: 'Auth bench', env: { ...process.env, DATABASE_URL: join(dir, 'bench.db') } });
const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
