/**
 * A runtime in a process of its own, for tests that kill it with SIGKILL in the middle of a run.
 * Reads DATABASE_URL, PORT and RUN_LEASE_SECONDS like any runtime, and FAKE_LLM_URL for the
 * test agents' model. With EMBEDDINGS_URL it also hosts a knowledge base `docs` (on the
 * SQLite file KNOWLEDGE_PATH, else in the PostgreSQL database), embedding with EMBEDDINGS_MODEL
 * and EMBEDDINGS_DIMENSIONS when set (EMBEDDING_* settings apply as in production). URL_HOSTS
 * (JSON, host name to address) names the hosts its URL fetches resolve by that table instead of
 * DNS, each allowed an internal address; other names still go to DNS. Prints `listening <url>`
 * once it accepts connections.
 *
 *   node --import tsx test/support/runtime-process.ts
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { UrlFetchOptions } from '../../src/knowledge/options.js';
import { Agent } from '../../src/agent/agent.js';
import { OpenAIChatModel } from '../../src/providers/openai/chat.js';
import { tool } from '../../src/tools/function-tool.js';
import { Runtime } from '../../src/runtime.js';
import { silentLogger } from '../../src/util/logger.js';
import { testComponents, testKnowledge } from './components.js';

const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${process.env.FAKE_LLM_URL}/v1`, maxRetries: 0 });
const { agents, teams, workflows } = testComponents(model);
// An agent whose tool needs a person's confirmation, so a run can pause and be continued.
const deleteFile = tool({
  name: 'delete_file',
  description: 'Delete a file',
  input: z.object({ path: z.string() }),
  requiresConfirmation: true,
  execute: ({ path }) => `Deleted ${path}`,
});
agents.push(new Agent({ id: 'files', instructions: 'Manage files.', tools: [deleteFile], model }));
const hosts = z.record(z.string(), z.string()).parse(JSON.parse(process.env.URL_HOSTS ?? '{}'));
const urlFetch: UrlFetchOptions = {
  allowPrivateHosts: Object.keys(hosts),
  resolve: async (host) => {
    const address = hosts[host];
    if (address !== undefined) return [{ address, family: isIP(address) === 6 ? 6 : 4 }];
    return lookup(host, { all: true }) as Promise<{ address: string; family: 4 | 6 }[]>;
  },
};
const embedding = {
  model: process.env.EMBEDDINGS_MODEL,
  dimensions: process.env.EMBEDDINGS_DIMENSIONS ? Number(process.env.EMBEDDINGS_DIMENSIONS) : undefined,
  ...(process.env.URL_HOSTS ? { urlFetch } : {}),
};
const knowledge = process.env.EMBEDDINGS_URL ? [testKnowledge(process.env.EMBEDDINGS_URL, process.env.KNOWLEDGE_PATH, process.env.DATABASE_URL, embedding)] : [];
const runtime = new Runtime({ agents, teams, workflows, knowledge, mcp_server: true, env: process.env }, { logger: silentLogger });
const server = await runtime.serve({ host: '127.0.0.1' });
process.stdout.write(`listening ${server.url}\n`);
