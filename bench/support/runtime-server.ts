// The quickstart runtime on a scratch SQLite file, as `npm start` would serve it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createQuickstartRuntime } from '../../examples/quickstart/src/runtime.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const runtime = createQuickstartRuntime({ env: { DATABASE_URL: join(dir, 'bench.db') } });
const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
