/**
 * The runtime a browser test drives: a real Runtime on a free loopback port with a temp SQLite
 * file, its agents answering from the loopback fake LLM the runtime's own tests use
 * (packages/runtime/test/support/fake-llm.ts): `helper` calls get_weather then answers,
 * `files` pauses for confirmation before delete_file, `echo` repeats the message, `librarian`
 * searches the writable `library` base; a team and a workflow of them. By default everything is
 * in temp SQLite files; given a test database (the runtime tests' databases.ts, so PostgreSQL
 * is a fresh schema) the runtime's store and the `library` base both live in it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, Knowledge, OpenAIChatModel, OpenAIEmbedder, Runtime, SqliteDb, SqliteVectorStore, Team, Workflow, defaultReaders, silentLogger, step, tool, type RemoteSource } from '@svc/runtime';
import { PostgresVectorStore } from '../../../runtime/src/knowledge/vector-stores/postgres/store.js';
import type { TestDatabase, TestDatabaseKind } from '../../../runtime/test/support/databases.js';
import { startFakeLlm, type FakeLlm } from '../../../runtime/test/support/fake-llm.js';

export const SECURITY_KEY = 'panel-test-security-key-0123456789';

export interface PanelRuntime {
  url: string;
  fake: FakeLlm;
  runtime: Runtime;
  /** Files deleted by the confirmed tool, in order. */
  deleted: string[];
  stop(): Promise<void>;
}

export interface PanelRuntimeOptions {
  securityKey?: string;
  /** JWT mode: tokens verified with these public keys (PEM) and this audience, as a deployment's identity provider would sign them. */
  jwt?: { verificationKeys: string[]; audience: string; tenantClaim?: string };
  /** An embedder for `library` at this loopback fake (fake-embeddings.ts), so it has vectors to reindex. */
  embeddingsUrl?: string;
  /** Remote content sources of `library` (e.g. an S3Source on the loopback s3rver). */
  contentSources?: RemoteSource[];
  /** Where the runtime and the `library` base keep their data; default temp SQLite files. */
  database?: TestDatabaseKind;
  /** More agents, made with the fake model (an agent using MCP servers). */
  moreAgents?: (model: () => OpenAIChatModel) => Agent[];
}

export async function startPanelRuntime(options: PanelRuntimeOptions = {}): Promise<PanelRuntime> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ui-runtime-'));
  const database: TestDatabase | undefined = options.database?.kind === 'postgres' ? await options.database.create() : undefined;
  // The base's store gets its own pool, as a deployment's separate knowledge database would.
  const storeDb = database?.open();
  const fake = await startFakeLlm({
    toolArguments: { get_weather: { city: 'Paris' }, delete_file: { path: 'notes.txt' }, search_knowledge_base: { query: 'comfrey' } },
  });
  const model = () => new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
  const deleted: string[] = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'The weather in a city',
    input: z.object({ city: z.string() }),
    execute: ({ city }) => `Sunny in ${city}`,
  });
  const deleteFile = tool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => {
      deleted.push(path);
      return `Deleted ${path}`;
    },
  });
  const library = new Knowledge({
    id: 'library',
    name: 'Library',
    description: 'What the tests upload',
    store: storeDb
      ? new PostgresVectorStore({ db: storeDb, table: 'library_docs', id: 'library-store', name: 'PostgreSQL' })
      : new SqliteVectorStore({ path: join(dir, 'knowledge.db'), id: 'library-store', name: 'SQLite' }),
    readers: defaultReaders({}),
    ...(options.embeddingsUrl
      ? { embedder: new OpenAIEmbedder({ apiKey: 'sk-emb', baseURL: `${options.embeddingsUrl}/v1`, model: 'fake-embed', maxRetries: 0 }) }
      : {}),
    ...(options.contentSources ? { contentSources: options.contentSources } : {}),
  });
  const helper = new Agent({ id: 'helper', name: 'Helper', instructions: 'Help.', tools: [getWeather], model: model() });
  const echo = new Agent({ id: 'echo', name: 'Echo', instructions: 'Repeat.', model: model() });
  const runtime = new Runtime(
    {
      id: 'panel-test',
      name: 'Panel Test',
      agents: [
        helper,
        echo,
        new Agent({ id: 'files', name: 'Files', instructions: 'Manage files.', tools: [deleteFile], model: model() }),
        new Agent({ id: 'librarian', name: 'Librarian', instructions: 'Search first.', knowledge: library, model: model() }),
        ...(options.moreAgents?.(model) ?? []),
      ],
      teams: [new Team({ id: 'crew', name: 'Crew', mode: 'route', members: [echo, helper], model: model() })],
      workflows: [new Workflow({ id: 'flow', name: 'Flow', steps: [step('shout', ({ message }) => message.toUpperCase()), step('say', echo)] })],
      knowledge: [library],
      mcp_server: true,
      db: database ? database.open() : new SqliteDb({ path: join(dir, 'runtime.db') }),
      env: options.securityKey ? { OS_SECURITY_KEY: options.securityKey } : {},
      ...(options.jwt ? { authorization: true, authorization_config: { verification_keys: options.jwt.verificationKeys, audience: options.jwt.audience, ...(options.jwt.tenantClaim ? { tenant_claim: options.jwt.tenantClaim } : {}) } } : {}),
    },
    { logger: silentLogger },
  );
  const server = await runtime.serve({ port: 0, host: '127.0.0.1' });
  return {
    url: server.url,
    fake,
    runtime,
    deleted,
    async stop() {
      await server.close();
      await fake.close();
      await storeDb?.close();
      await database?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
