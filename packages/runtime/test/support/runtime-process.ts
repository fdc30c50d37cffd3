/**
 * A runtime in a process of its own, for tests that kill it with SIGKILL in the middle of a run.
 * Reads DATABASE_URL, PORT and RUN_LEASE_SECONDS like any runtime, and FAKE_LLM_URL for the
 * test agents' model; prints `listening <url>` once it accepts connections.
 *
 *   node --import tsx test/support/runtime-process.ts
 */
import { OpenAIChatModel } from '../../src/model/openai-chat-model.js';
import { Runtime } from '../../src/runtime.js';
import { silentLogger } from '../../src/server/logger.js';
import { testComponents } from './components.js';

const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${process.env.FAKE_LLM_URL}/v1`, maxRetries: 0 });
const { agents, teams, workflows } = testComponents(model);
const runtime = new Runtime({ agents, teams, workflows, mcp_server: true, env: process.env }, { logger: silentLogger });
const server = await runtime.serve({ host: '127.0.0.1' });
process.stdout.write(`listening ${server.url}\n`);
