/**
 * The foundation routes and the error model, against a real server on loopback, on SQLite and
 * on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from '@hono/zod-openapi';
import { RuntimeError } from '../src/errors.js';
import { apiRoute, PUBLIC, rawRoute, scoped } from '../src/server/route.js';
import { testDatabaseKinds } from './support/databases.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

const echoBody = z.object({
  name: z.string().min(1),
  tags: z.array(z.string()).max(3).optional(),
});

// Routes that exist only in this test, to exercise validation and failure paths end to end.
const testRoutes = () => [
  apiRoute(
    PUBLIC,
    {
      method: 'post',
      path: '/test/echo',
      operationId: 'echoTest',
      request: { body: { content: { 'application/json': { schema: echoBody } }, required: true } },
      responses: { 200: { description: 'echo', content: { 'application/json': { schema: echoBody } } } },
    },
    (c) => c.json(c.req.valid('json'), 200),
  ),
  rawRoute(PUBLIC, 'GET', '/test/crash', () => {
    throw new Error('secret internal detail: password=hunter2');
  }),
  rawRoute(PUBLIC, 'GET', '/test/conflict', () => {
    throw new RuntimeError('CONFLICT', 'Already exists');
  }),
];

const agent = { id: 'helper', name: 'Helper', description: 'Helps' };

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, refuses new ones, then closes the database', async () => {
    let entered!: () => void;
    const handlerEntered = new Promise<void>((r) => (entered = r));
    const rt = await startRuntime(testDatabaseKinds[0]!, {}, {
      routes: () => [
        rawRoute(PUBLIC, 'GET', '/test/slow', async (c) => {
          entered();
          await new Promise((r) => setTimeout(r, 300));
          return c.json({ done: true });
        }),
      ],
    });
    const inFlight = fetch(`${rt.url}/test/slow`);
    await handlerEntered;
    const closed = rt.server.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closed;
    await expect(fetch(`${rt.url}/health`)).rejects.toThrow('fetch failed');
    const error = await rt.runtime.db.query('SELECT 1').catch((e: unknown) => e);
    expect((error as RuntimeError).code).toBe('SERVICE_UNAVAILABLE');
    await rt.database.cleanup();
  });
});

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`runtime server on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    const get = (path: string, init?: RequestInit) => fetch(`${rt.url}${path}`, init);

    beforeAll(async () => {
      rt = await startRuntime(
        kind,
        {
          id: 'test-os',
          name: 'Test OS',
          description: 'A runtime under test',
          version: '9.9.9',
          agents: [agent],
          teams: [{ id: 't1', name: 'Team one' }],
          workflows: [],
          knowledge: [{ id: 'docs', name: 'Docs', table: 'docs_contents' }],
          mcp_server: true,
          max_body_bytes: 4096,
        },
        { routes: testRoutes },
      );
    });
    afterAll(async () => rt?.stop());

    it('GET / names the runtime and links the docs', async () => {
      const res = await get('/');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ name: 'Test OS', id: 'test-os', version: '9.9.9', docs: '/docs' });
    });

    it('GET /health answers ok with the start time', async () => {
      const res = await get('/health');
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; instantiated_at: string };
      expect(body.status).toBe('ok');
      expect(new Date(body.instantiated_at).toISOString()).toBe(body.instantiated_at);
      expect(body.instantiated_at).toBe(rt.runtime.instantiatedAt.toISOString());
    });

    it('GET /info has the discovery fields', async () => {
      const res = await get('/info');
      expect(await res.json()).toEqual({
        os_id: 'test-os',
        name: 'Test OS',
        version: '9.9.9',
        agent_count: 1,
        team_count: 1,
        workflow_count: 0,
        mcp: { enabled: true, path: '/mcp', oauth: null },
        auth_mode: 'none',
      });
    });

    it('GET /config lists components, databases and knowledge', async () => {
      const res = await get('/config');
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        os_id: 'test-os',
        name: 'Test OS',
        description: 'A runtime under test',
        os_database: kind.kind,
        databases: [kind.kind],
        agents: [{ id: 'helper', name: 'Helper', description: 'Helps' }],
        teams: [{ id: 't1', name: 'Team one' }],
        workflows: [],
        knowledge: { knowledge_instances: [{ id: 'docs', name: 'Docs', db_id: kind.kind, table: 'docs_contents' }] },
      });
    });

    it('ignores a trailing slash without redirecting', async () => {
      const res = await get('/info/', { redirect: 'manual' });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { os_id: string }).os_id).toBe('test-os');
      const post = await get('/test/echo/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
      expect(post.status).toBe(200);
    });

    it('serves an OpenAPI 3.1.0 document generated from the route schemas', async () => {
      const res = await get('/openapi.json');
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        openapi: string;
        info: { version: string };
        paths: Record<string, Record<string, { security?: unknown }>>;
        components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
      };
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe('2.7.2');
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/', '/health', '/info', '/config']));
      expect(doc.paths['/config']?.get?.security).toEqual([{ HTTPBearer: [] }]);
      expect(doc.paths['/health']?.get?.security).toEqual([]);
      expect(doc.components.schemas).toHaveProperty('InfoResponse');
      expect(doc.components.schemas).toHaveProperty('ErrorResponse');
      expect(doc.components.securitySchemes).toHaveProperty('HTTPBearer');
    });

    it('serves Swagger UI and Redoc from local assets, never a CDN', async () => {
      for (const path of ['/docs', '/redoc']) {
        const res = await get(path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/text\/html/);
        // The browser itself refuses anything not served by the runtime (see docs-browser.test.ts).
        expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self'; script-src 'self';/);
        const html = await res.text();
        expect(html).not.toMatch(/https?:\/\//);
        for (const [, src] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
          const asset = await get(src!);
          expect(asset.status, src).toBe(200);
          expect((await asset.arrayBuffer()).byteLength, src).toBeGreaterThan(0);
        }
      }
      expect(await (await get('/redoc/redoc.standalone.js')).text()).not.toContain('cdn.redoc.ly');
      expect(await (await get('/docs/assets/init.js')).text()).toContain('validatorUrl: null');
      const redirect = await get('/docs/oauth2-redirect');
      expect(redirect.status).toBe(200);
      expect(await redirect.text()).toMatch(/oauth2-redirect\.js/);
      expect((await get('/docs/oauth2-redirect.js')).status).toBe(200);
    });

    it('refuses asset names outside the fixed list', async () => {
      for (const path of ['/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd']) {
        const res = await get(path);
        expect(res.status, path).toBe(404);
        expect(await res.json()).toEqual({ detail: 'Not Found', error_code: 'NOT_FOUND' });
      }
    });

    it('answers unknown routes with a JSON 404', async () => {
      const res = await get('/no/such/route');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.json()).toEqual({ detail: 'Not Found', error_code: 'NOT_FOUND' });
    });

    it('answers malformed JSON with 400 BAD_REQUEST', async () => {
      const res = await get('/test/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": ' });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { detail: string; error_code: string };
      expect(body.error_code).toBe('BAD_REQUEST');
      expect(body.detail).toMatch(/JSON/i);
    });

    it('answers schema failures with 422 and field paths', async () => {
      const res = await get('/test/echo', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: '', tags: ['a', 'b', 'c', 'd'] }),
      });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: string; error_code: string; errors: { loc: unknown[] }[] };
      expect(body.error_code).toBe('VALIDATION_ERROR');
      expect(body.detail).toMatch(/json\.name/);
      expect(body.errors.map((e) => e.loc)).toEqual([
        ['json', 'name'],
        ['json', 'tags'],
      ]);
    });

    it('answers unexpected failures with a 500 that leaks nothing', async () => {
      const res = await get('/test/crash');
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toMatch(/hunter2|secret|stack|at /);
      const body = JSON.parse(text) as { detail: string; error_code: string };
      expect(body.error_code).toBe('INTERNAL_SERVER_ERROR');
      expect(body.detail).toMatch(/^Internal server error/);
    });

    it('keeps the status and code of typed errors', async () => {
      const res = await get('/test/conflict');
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ detail: 'Already exists', error_code: 'CONFLICT' });
    });

    it('refuses oversized bodies with 413 in the same shape', async () => {
      const res = await get('/test/echo', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x'.repeat(10_000) }),
      });
      expect(res.status).toBe(413);
      const body = (await res.json()) as { detail: string; error_code: string };
      expect(body.error_code).toBe('PAYLOAD_TOO_LARGE');
      expect(body.detail).toMatch(/4096 bytes/);
    });

    it('records an access decision for every route', () => {
      const entries = rt.runtime.routes;
      expect(entries.find((r) => r.path === '/config')?.access).toEqual(scoped('config:read'));
      for (const path of ['/', '/health', '/info', '/docs', '/redoc', '/openapi.json', '/docs/oauth2-redirect']) {
        expect(entries.find((r) => r.path === path)?.access, path).toEqual(PUBLIC);
      }
    });
  });
}
