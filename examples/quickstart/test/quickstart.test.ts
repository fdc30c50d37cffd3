/**
 * The quickstart's components as a user meets them over HTTP, with no model configured: the
 * catalogue is all there, a run fails with a clear RunError instead of crashing, and the two
 * knowledge bases (read-only docs, writable library) work with no key, hybrid search included
 * (the local sentence encoder embeds).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Knowledge, SqliteDb, type RunningRuntime, type Runtime } from '@svc/runtime';
import { eventually } from '../../../packages/runtime/test/support/eventually.js';
import { configDifferences } from '../../../packages/runtime/test/support/knowledge-spec.js';
import { createQuickstartRuntime } from '../src/runtime.js';

let dir: string;
let runtime: Runtime;
let server: RunningRuntime;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-quickstart-'));
  runtime = createQuickstartRuntime({ db: new SqliteDb({ path: join(dir, 'q.db') }), env: {} });
  server = await runtime.serve({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
  // The runtime leaves the knowledge stores it hosts to their owner.
  for (const k of runtime?.knowledge ?? []) if (k instanceof Knowledge) await k.store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get(path: string): Promise<any> {
  const res = await fetch(`${server.url}${path}`);
  expect(res.status).toBe(200);
  return res.json();
}

/** An upload's status once its background processing has ended. */
function settled(id: string): Promise<{ status: string; status_message: string | null }> {
  return eventually(async () => {
    const status = await get(`/knowledge/content/${id}/status`);
    return status.status === 'processing' ? undefined : status;
  });
}

describe('quickstart catalogue', () => {
  it('serves three agents (one with a tool, two with knowledge), a team and a workflow', async () => {
    const agents = await get('/agents');
    expect(agents.map((a: any) => a.id)).toEqual(['assistant', 'docs-expert', 'librarian']);
    const assistant = await get('/agents/assistant');
    expect(assistant.tools.tools.map((t: any) => t.name)).toEqual(['get_current_time', 'update_user_memory']);
    expect(assistant.memory).toEqual({ recall: true, tool: true, extract: true, summaries: true });
    const expert = await get('/agents/docs-expert');
    expect(expert.tools.tools.map((t: any) => t.name)).toEqual(['search_knowledge_base']);
    expect(expert.knowledge).toMatchObject({ id: 'runtime-docs' });
    const librarian = await get('/agents/librarian');
    expect(librarian.tools.tools.map((t: any) => t.name)).toEqual(['search_knowledge_base']);
    expect(librarian.knowledge).toMatchObject({ id: 'library' });

    const teams = await get('/teams');
    expect(teams).toHaveLength(1);
    expect(teams[0]).toMatchObject({ id: 'support' });
    const workflows = await get('/workflows');
    expect(workflows).toHaveLength(1);
    expect(workflows[0]).toMatchObject({ id: 'research' });

    const info = await get('/info');
    expect(info).toMatchObject({ agent_count: 3, team_count: 1, workflow_count: 1, mcp: { enabled: true } });
    const config = await get('/config');
    expect(JSON.stringify(config.knowledge)).toContain('runtime-docs');
  });
});

describe('quickstart knowledge bases', () => {
  it('hosts the read-only docs and the writable library, each with its own store; vector, keyword and hybrid search with no key', async () => {
    const knowledge = await get('/knowledge/config');
    const all = ['vector', 'keyword', 'hybrid'];
    expect(knowledge.vector_dbs).toEqual([
      { id: 'runtime-docs-index', name: 'SQLite (in memory)', description: expect.any(String), search_types: all },
      { id: 'library-store', name: 'SQLite', description: expect.any(String), search_types: all },
    ]);
    // The library's store is a file of its own beside the runtime's database.
    expect(existsSync(join(dir, 'knowledge.db'))).toBe(true);
    const docs = await get('/knowledge/config?knowledge_id=runtime-docs');
    expect([Object.keys(docs.readers), docs.readersForType['.md']]).toEqual([['markdown'], ['markdown']]);
  });

  it('reports the full set of readers and chunkers: the spec’s tables (the converter comes with its branch)', async () => {
    const library = await get('/knowledge/config?knowledge_id=library');
    expect(configDifferences(library)).toEqual([]);
    expect(configDifferences(await get('/knowledge/config'))).toEqual(configDifferences(library));
  });

  it('takes uploads without knowledge_id (the library is the only base that takes content)', async () => {
    const form = new FormData();
    form.append('file', new Blob(['# Compost\n\nTurn the heap every fortnight with a garden fork.\n']), 'compost.md');
    const res = await fetch(`${server.url}/knowledge/content`, { method: 'POST', body: form });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await settled(id)).toMatchObject({ status: 'completed' });
    const found = await fetch(`${server.url}/knowledge/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'turn the heap' }),
    });
    expect(((await found.json()) as { data: { content_id: string }[] }).data[0]?.content_id).toBe(id);
  });

  it('lists the source readers with no keys set; using one fails naming the setting', async () => {
    const res = await fetch(`${server.url}/knowledge/content`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'composting', reader_id: 'web_search' }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await settled(id)).toMatchObject({ status: 'failed', status_message: expect.stringContaining('set SEARXNG_BASE_URL') });
  });
});

describe('quickstart with no model configured', () => {
  it('ends a non-streaming run with a clear error and keeps serving', async () => {
    const res = await fetch(`${server.url}/agents/assistant/runs`, {
      method: 'POST',
      body: new URLSearchParams({ message: 'What time is it in Tokyo?', stream: 'false' }),
    });
    const body: any = await res.json();
    expect(body.status).toBe('ERROR');
    expect(JSON.stringify(body)).toMatch(/OPENAI_API_KEY/);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('streams TeamRunStarted then a TeamRunError naming the settings, for a team too', async () => {
    const res = await fetch(`${server.url}/teams/support/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'How do I cancel a run?' }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    const events = [...text.matchAll(/^event: (\w+)/gm)].map((m) => m[1]);
    // Team events carry the Team prefix, as the reference's clients expect.
    expect(events[0]).toBe('TeamRunStarted');
    expect(events.at(-1)).toBe('TeamRunError');
    expect(text).toMatch(/OPENAI_API_KEY/);
  });

  it('runs the workflow’s docs lookup, then fails clearly at the step that needs a model', async () => {
    const res = await fetch(`${server.url}/workflows/research/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'sessions' }),
    });
    const text = await res.text();
    const completed = text.split('\n\n').find((e) => e.startsWith('event: StepCompleted'));
    expect(completed).toMatch(/"step_name":"lookup"/);
    expect(completed).toMatch(/Every run belongs to a session/);
    expect(text).toMatch(/event: WorkflowError/);

    const [run] = await get(`/workflows/research/runs`);
    expect(run.status).toBe('ERROR');
    expect(run.error).toMatch(/Agent "Writer" cannot run\. No model is configured: set OPENAI_API_KEY/);
  });
});
