/**
 * A runtime for the isolation and tenancy contract tests: the writer agent on the loopback
 * model, a knowledge base (chunks in a SQLite file, records in the runtime's own database of
 * either kind), the /mcp endpoint, and RS256 JWTs signed per run. Helpers act as one caller on
 * REST and MCP and answer only what that caller can see.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { Knowledge } from '../../src/knowledge/knowledge.js';
import { SqliteVectorStore } from '../../src/knowledge/vector-stores/sqlite/store.js';
import { OpenAIEmbedder } from '../../src/providers/openai/embeddings.js';
import { OpenAIChatModel } from '../../src/providers/openai/chat.js';
import type { RuntimeOptions } from '../../src/runtime-options.js';
import { testComponents } from './components.js';
import type { TestDatabaseKind } from './databases.js';
import type { FakeLlm } from './fake-llm.js';
import { call } from './http.js';
import { sign, type SigningKey } from './jwt.js';
import { startRuntime, type StartedRuntime } from './runtime.js';

type Json = Record<string, any>;

/** What an ordinary user holds: run the writer, read and change its sessions, memories and documents, read traces. */
export const USER_SCOPES = [
  'agents:run', 'agents:read', 'sessions:read', 'sessions:write', 'sessions:delete', 'memories:read', 'memories:write',
  'memories:delete', 'knowledge:read', 'knowledge:write', 'knowledge:delete', 'traces:read', 'metrics:read', 'schedules:read', 'schedules:write',
  'service_accounts:read', 'service_accounts:write',
];

export async function startIsolated(
  kind: TestDatabaseKind,
  fake: FakeLlm,
  key: SigningKey,
  config: NonNullable<RuntimeOptions['authorization_config']> = {},
  env: Record<string, string> = {},
): Promise<StartedRuntime> {
  const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
  const embedder = new OpenAIEmbedder({ apiKey: 'sk-fake', baseURL: `${fake.url}/v1`, model: 'fake-embed', maxRetries: 0 });
  const store = new SqliteVectorStore({ path: join(mkdtempSync(join(tmpdir(), 'svc-iso-')), 'chunks.db'), table: 'iso' });
  const docs = new Knowledge({ id: 'docs', store, embedder });
  const { agents } = testComponents(model);
  return startRuntime(kind, {
    agents,
    knowledge: [docs],
    mcp_server: true,
    authorization: true,
    authorization_config: { verification_keys: [key.publicPem], ...config },
    env,
  });
}

export const token = (key: SigningKey, claims: Record<string, unknown>): Promise<string> => sign(key, { claims });

export async function mcpAs(url: string, bearer: string): Promise<Client> {
  const client = new Client({ name: 'isolation', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

/** A completed run of the writer as this caller, in this session. */
export async function runAs(url: string, bearer: string, sessionId: string): Promise<string> {
  const res = await call(url, 'POST', '/agents/writer/runs', { token: bearer, body: { message: `hello from ${sessionId}`, session_id: sessionId, stream: false } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('COMPLETED');
  return res.body.run_id as string;
}

/** A text document uploaded as this caller, once its processing has ended. */
export async function documentAs(url: string, bearer: string, name: string): Promise<string> {
  const res = await call(url, 'POST', '/knowledge/content', { token: bearer, body: { name, text_content: `The ${name} says the kettle is blue.` } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const id = res.body.id as string;
  for (let i = 0; i < 400; i++) {
    const status = await call(url, 'GET', `/knowledge/content/${id}`, { token: bearer });
    if (status.body.status !== 'processing') {
      expect(status.body.status, JSON.stringify(status.body)).toBe('completed');
      return id;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`document ${name} is still processing`);
}

export async function memoryAs(url: string, bearer: string, text: string): Promise<string> {
  const res = await call(url, 'POST', '/memories', { token: bearer, body: { memory: text } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.memory_id as string;
}

/** Everything of each kind this caller can list through REST. */
export async function visibleTo(url: string, bearer: string): Promise<{ sessions: string[]; runs: string[]; traces: string[]; memories: string[]; documents: string[] }> {
  const get = async (path: string): Promise<Json> => {
    const res = await call(url, 'GET', path, { token: bearer });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  return {
    sessions: ((await get('/sessions?limit=100')).data as Json[]).map((s) => s.session_id).sort(),
    runs: ((await get('/agents/writer/runs')) as unknown as Json[]).map((r) => r.run_id).sort(),
    traces: ((await get('/traces?limit=100')).data as Json[]).map((t) => t.run_id).sort(),
    memories: ((await get('/memories?limit=100')).data as Json[]).map((m) => m.memory_id).sort(),
    documents: ((await get('/knowledge/content?limit=100')).data as Json[]).map((d) => d.id).sort(),
  };
}

/** Everything of each kind this caller can list through the /mcp tools. */
export async function visibleOverMcp(url: string, bearer: string): Promise<{ sessions: string[]; memories: string[] }> {
  const client = await mcpAs(url, bearer);
  try {
    const sessions = await client.callTool({ name: 'get_sessions', arguments: { limit: 100 } });
    expect(sessions.isError, JSON.stringify(sessions.content)).toBeFalsy();
    const memories = await client.callTool({ name: 'get_memories', arguments: { limit: 100 } });
    expect(memories.isError, JSON.stringify(memories.content)).toBeFalsy();
    return {
      sessions: ((sessions.structuredContent as Json).data as Json[]).map((s) => s.session_id).sort(),
      memories: ((memories.structuredContent as Json).data as Json[]).map((m) => m.memory_id).sort(),
    };
  } finally {
    await client.close();
  }
}

/** What one MCP tool call answers: its error text, or undefined when it succeeded. */
export async function mcpError(url: string, bearer: string, name: string, args: Record<string, unknown>): Promise<string | undefined> {
  const client = await mcpAs(url, bearer);
  try {
    const result = await client.callTool({ name, arguments: args });
    return result.isError ? ((result.content as { text: string }[])[0]?.text ?? '') : undefined;
  } finally {
    await client.close();
  }
}

export const sorted = (...ids: string[]): string[] => [...ids].sort();
