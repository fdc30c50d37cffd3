/**
 * A runtime in a process of its own whose agent `helper` uses two stdio MCP servers
 * (server-everything, and server-filesystem on MCP_FOLDER), for tests that kill it with SIGKILL
 * and look for the servers it left. Reads DATABASE_URL, PORT and FAKE_LLM_URL; prints
 * `listening <url>` once it accepts connections.
 *
 *   node --import tsx test/support/mcp-runtime-process.ts
 */
import { Agent } from '../../src/agent/agent.js';
import { mcpServer } from '../../src/mcp-client/mcp-server.js';
import { OpenAIChatModel } from '../../src/providers/openai/chat.js';
import { Runtime } from '../../src/runtime.js';
import { silentLogger } from '../../src/util/logger.js';
import { everythingStdio, filesystemStdio } from './mcp-servers.js';

const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${process.env.FAKE_LLM_URL}/v1`, maxRetries: 0 });
const tools = [mcpServer({ id: 'everything', ...everythingStdio() }), mcpServer({ id: 'files', ...filesystemStdio(process.env.MCP_FOLDER ?? '.') })];
const runtime = new Runtime({ agents: [new Agent({ id: 'helper', tools, model })], env: process.env }, { logger: silentLogger });
const server = await runtime.serve({ host: '127.0.0.1' });
process.stdout.write(`listening ${server.url}\n`);
// A shutdown as serveUntilStopped does it: runs, then the MCP servers, then the database.
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
