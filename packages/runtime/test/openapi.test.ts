/**
 * The OpenAPI document as clients and generators read it, from a real server hosting every kind
 * of component.
 */
import { z } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../src/runtime.js';
import { silentLogger } from '../src/util/logger.js';
import { apiRoute, PUBLIC } from '../src/server/route.js';
import { sqliteTestDatabase } from './support/databases.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
}
interface Document {
  openapi: string;
  info: unknown;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

function operations(doc: Document): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ method, path, op })),
  );
}

describe('the OpenAPI document', () => {
  let rt: StartedRuntime;
  let doc: Document;

  beforeAll(async () => {
    rt = await startRuntime(sqliteTestDatabase, {
      agents: [{ id: 'helper', name: 'Helper' }],
      teams: [{ id: 't1', name: 'Team one' }],
      workflows: [{ id: 'w1', name: 'Flow' }],
      mcp_server: true,
    });
    doc = (await call(rt.url, 'GET', '/openapi.json')).body as Document;
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('gives every operation a unique camelCase operationId', () => {
    const ids = operations(doc).map(({ method, path, op }) => op.operationId ?? `(none on ${method.toUpperCase()} ${path})`);
    expect(ids.length).toBeGreaterThanOrEqual(44);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('keeps the operationIds clients were generated from', () => {
    // Renaming one of these breaks every generated client: change them only on purpose.
    const pinned: Record<string, string> = {
      'GET /': 'getHome',
      'GET /health': 'getHealth',
      'GET /agents': 'listAgents',
      'GET /agents/{agent_id}': 'getAgent',
      'POST /agents/{agent_id}/runs': 'runAgent',
      'GET /agents/{agent_id}/runs/{run_id}': 'getAgentRun',
      'POST /teams/{team_id}/runs/{run_id}/cancel': 'cancelTeamRun',
      'POST /workflows/{workflow_id}/runs/{run_id}/continue': 'continueWorkflowRun',
      'GET /sessions': 'listSessions',
      'DELETE /sessions': 'deleteSessions',
      'POST /service-accounts': 'createServiceAccount',
      'DELETE /service-accounts/{service_account_id}': 'revokeServiceAccount',
      'POST /knowledge/content': 'uploadContent',
      'POST /knowledge/search': 'searchKnowledge',
    };
    const ids = new Map(operations(doc).map(({ method, path, op }) => [`${method.toUpperCase()} ${path}`, op.operationId]));
    expect(Object.fromEntries(Object.keys(pinned).map((key) => [key, ids.get(key)]))).toEqual(pinned);
  });

  it('marks public operations with security: [] and keeps the bearer on every other one', () => {
    const publicPaths = new Set(rt.runtime.routes.filter((r) => r.documented && r.access.kind === 'public').map((r) => `${r.method} ${r.path}`));
    expect([...publicPaths].sort()).toEqual(['GET /', 'GET /health', 'GET /info']);
    for (const { method, path, op } of operations(doc)) {
      const expected = publicPaths.has(`${method.toUpperCase()} ${path}`) ? [] : [{ HTTPBearer: [] }];
      expect(op.security, `${method} ${path}`).toEqual(expected);
    }
  });

  it('names the server it was fetched from, after info', async () => {
    expect(doc.servers).toEqual([{ url: rt.url }]);
    expect(Object.keys(doc).slice(0, 3)).toEqual(['openapi', 'info', 'servers']);
    // Built once, but the origin is each request's own.
    const other = (await (await rt.runtime.fetch(new Request('http://runtime.example:8080/openapi.json'))).json()) as Document;
    expect(other.servers).toEqual([{ url: 'http://runtime.example:8080' }]);
    expect(other.paths).toEqual(doc.paths);
  });

  it('uses "an" before a vowel in every summary and description', () => {
    const texts = operations(doc).flatMap(({ op }) => [op.summary ?? '', op.description ?? '']);
    expect(texts.filter((text) => /\ba [aeio]/i.test(text))).toEqual([]);
    expect(operations(doc).find(({ method, path }) => method === 'post' && path === '/agents/{agent_id}/runs')?.op.summary).toBe('Run an agent');
  });
});

describe('OpenAPI servers and operationIds', () => {
  it('uses the configured public URL when the runtime has one', async () => {
    const rt = await startRuntime(sqliteTestDatabase, {
      mcp_server: { oauth: { authorization_servers: ['https://login.example.com'], resource: 'https://agents.example.com/mcp' } },
      authorization_config: { verification_keys: ['a-shared-secret-of-some-length'], algorithm: 'HS256' },
    });
    try {
      expect((await call(rt.url, 'GET', '/openapi.json')).body.servers).toEqual([{ url: 'https://agents.example.com' }]);
    } finally {
      await rt.stop();
    }
  });

  it('refuses two routes with one operationId when the app is built', async () => {
    const database = await sqliteTestDatabase.create();
    const clash = apiRoute(
      PUBLIC,
      { method: 'get', path: '/test/health', operationId: 'getHealth', responses: { 200: { description: 'ok', content: { 'application/json': { schema: z.object({}) } } } } },
      (c) => c.json({}, 200),
    );
    const runtime = new Runtime({ env: {}, db: database.open() }, { logger: silentLogger, parts: { routes: () => [clash] } });
    try {
      expect(() => runtime.app).toThrow('Two routes declare the operationId "getHealth"');
    } finally {
      await runtime.close();
      await database.cleanup();
    }
  });
});
