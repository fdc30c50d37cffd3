/**
 * The agents, team and workflow the end-to-end tests host, all on one model.
 */
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { OpenAIEmbedder } from '../../src/providers/openai/embeddings.js';
import { Knowledge } from '../../src/knowledge/knowledge.js';
import type { KnowledgeOptions } from '../../src/knowledge/options.js';
import type { Reader } from '../../src/knowledge/readers/reader.js';
import { PostgresVectorStore } from '../../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../../src/knowledge/vector-stores/sqlite/store.js';
import { openDb } from '../../src/storage/open-db.js';
import type { Model } from '../../src/model/model.js';
import { Team } from '../../src/team/team.js';
import { tool } from '../../src/tools/function-tool.js';
import { condition, parallel, step } from '../../src/workflow/steps.js';
import { Workflow } from '../../src/workflow/workflow.js';

export function testComponents(model: Model | undefined) {
  const weatherCalls: string[] = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string() }),
    execute: ({ city }) => {
      weatherCalls.push(city);
      return `It is sunny in ${city}`;
    },
  });
  const opts = model ? { model } : {};
  const weather = new Agent({ id: 'weather', name: 'Weather agent', instructions: 'Use the tool.', tools: [getWeather], ...opts });
  const writer = new Agent({ id: 'writer', name: 'Writer', description: 'Writes text', ...opts });
  const router = new Team({ id: 'router', name: 'Router', mode: 'route', members: [writer, weather], ...opts });
  const coordinator = new Team({ id: 'coordinator', mode: 'coordinate', members: [writer], ...opts });
  const pipeline = new Workflow({
    id: 'pipeline',
    name: 'Pipeline',
    steps: [
      step('draft', writer),
      parallel('checks', step('length', (i) => `length=${i.previous?.length ?? 0}`), step('shout', (i) => (i.previous ?? '').toUpperCase())),
      condition('only-if-long', (i) => (i.outputs.draft?.length ?? 0) > 1000, step('trim', () => 'trimmed')),
      step('final', (i) => `final: ${i.outputs.shout}`),
    ],
  });
  return { agents: [weather, writer], teams: [router, coordinator], workflows: [pipeline], weatherCalls };
}

/**
 * The knowledge base `docs`, embedding through the fake embeddings server at `embeddingsUrl`:
 * on a SQLite file of its own, or in the PostgreSQL database named by `databaseUrl`. `more`
 * adds options (its remote content sources).
 */
export function testKnowledge(
  embeddingsUrl: string,
  sqlitePath: string | undefined,
  databaseUrl: string | undefined,
  embedding: { model?: string | undefined; dimensions?: number | undefined; readers?: Reader[] | undefined } & Pick<KnowledgeOptions, 'contentSources' | 'urlFetch'> = {},
): Knowledge {
  const store = sqlitePath
    ? new SqliteVectorStore({ path: sqlitePath, table: 'kj_docs' })
    : new PostgresVectorStore({ db: openDb(databaseUrl), table: 'kj_docs' });
  const embedder = new OpenAIEmbedder({
    apiKey: 'sk-emb',
    baseURL: `${embeddingsUrl}/v1`,
    model: embedding.model ?? 'fake-embed',
    dimensions: embedding.dimensions,
    maxRetries: 0,
  });
  return new Knowledge({
    id: 'docs',
    store,
    embedder,
    ...(embedding.readers ? { readers: embedding.readers } : {}),
    ...(embedding.contentSources ? { contentSources: embedding.contentSources } : {}),
    ...(embedding.urlFetch ? { urlFetch: embedding.urlFetch } : {}),
  });
}
