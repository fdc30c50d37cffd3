// One agent on a scratch SQLite file, whose model is the loopback server at MODEL_URL;
// TRACES_ENABLED passes through, so a bench can compare tracing off and on.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, openai, Runtime, silentLogger } from '@svc/runtime';

const modelUrl = process.env.MODEL_URL;
if (!modelUrl) throw new Error('MODEL_URL is required');
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-runs-'));
const model = openai({ model: 'bench', apiKey: 'bench', baseURL: `${modelUrl}/v1` });
const runtime = new Runtime(
  {
    id: 'bench',
    agents: [new Agent({ id: 'echo', instructions: 'Repeat the message.', model })],
    env: { DATABASE_URL: join(dir, 'bench.db'), ...(process.env.TRACES_ENABLED ? { TRACES_ENABLED: process.env.TRACES_ENABLED } : {}) },
  },
  { logger: silentLogger },
);
const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
