/**
 * A background run started through one runtime and executed by another (sharing one database)
 * hands its MCP server's `headers(ctx)` the same caller a run started by the request has: the
 * principal's kind, user, scopes and a JWT's verified claims, kept with the run's job (never
 * the token). The first runtime's run worker is stopped, so only the second can start it. On
 * SQLite and PostgreSQL; the MCP server is the real server-everything over streamable HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { mcpServer, type McpHeadersContext } from '../src/mcp-client/index.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startEverythingHttp, type HttpMcpServer } from './support/mcp-servers.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`the caller of a background run started on another runtime (${kind.kind})`, () => {
    let fake: FakeLlm;
    let everything: HttpMcpServer;
    let database: TestDatabase;
    let key: SigningKey;
    let one: StartedRuntime;
    let two: StartedRuntime;
    const seen: { runtime: string; ctx: McpHeadersContext }[] = [];

    const runtime = (name: string) =>
      startRuntimeOn(database, {
        authorization: true,
        authorization_config: { verification_keys: [key.publicPem] },
        agents: [
          new Agent({
            id: 'helper',
            model: new OpenAIChatModel({ model: 'fake-model', apiKey: 'sk-test', baseURL: `${fake.url}/v1`, maxRetries: 0 }),
            tools: [
              mcpServer({
                id: 'everything',
                url: everything.url,
                allowPrivateHosts: true,
                include: ['echo'],
                headers: (ctx) => {
                  seen.push({ runtime: name, ctx });
                  return { 'x-user': ctx.userId ?? '' };
                },
              }),
            ],
          }),
        ],
      });

    beforeAll(async () => {
      [fake, everything, database, key] = await Promise.all([startFakeLlm(), startEverythingHttp(), kind.create(), signingKey('RS256', 'durable')]);
      one = await runtime('one');
      two = await runtime('two');
      // Only the second runtime starts queued runs.
      await one.runtime.runJobs.stop(1000);
    }, 60_000);
    afterAll(async () => {
      await one?.stop();
      await two?.stop();
      await database?.cleanup();
      await everything?.close();
      await fake?.close();
    });

    it('hands headers(ctx) the kind, user, scopes and claims of the request that queued it', async () => {
      const scopes = ['agents:run', 'agents:read'];
      const token = await sign(key, { claims: { sub: 'ann', scopes, org: 'acme', email: 'ann@acme.example' } });
      const accepted = await call(one.url, 'POST', '/agents/helper/runs', { token, body: { message: 'hello', background: true } });
      expect(accepted.status).toBe(202);
      const runId = accepted.body.run_id as string;
      const run = await eventually(async () => {
        const r = (await call(two.url, 'GET', `/agents/helper/runs/${runId}`, { token })).body as Json;
        return ['COMPLETED', 'ERROR', 'CANCELLED'].includes(r.status) ? r : undefined;
      }, 30_000, 'the background run to end');
      expect(run.status).toBe('COMPLETED');
      expect(seen.map((s) => s.runtime)).toEqual(['two']);
      const { ctx } = seen[0]!;
      expect(ctx).toMatchObject({ runId, userId: 'ann' });
      expect(ctx.principal).toEqual({ kind: 'jwt', userId: 'ann', scopes, claims: expect.objectContaining({ sub: 'ann', org: 'acme', email: 'ann@acme.example', scopes }) });
      expect(ctx.claims).toEqual(ctx.principal!.claims);
    });

    it('keeps the caller with the job while it waits, without the token, and not after', async () => {
      const db = database.open();
      const jobs = () => db.query<{ payload: string }>(`SELECT payload FROM svc_jobs WHERE kind = 'run:agent:helper'`);
      try {
        // The first test's job is gone with its run.
        expect(await jobs()).toEqual([]);
        await two.runtime.runJobs.stop(1000);
        const token = await sign(key, { claims: { sub: 'bob', scopes: ['agents:run'], team: 'red' } });
        expect((await call(one.url, 'POST', '/agents/helper/runs', { token, body: { message: 'later', background: true } })).status).toBe(202);
        const [row] = await jobs();
        expect(JSON.parse(row!.payload)).toEqual({
          run_id: expect.any(String),
          unconfined: false,
          caller: { kind: 'jwt', user_id: 'bob', scopes: ['agents:run'], claims: { sub: 'bob', scopes: ['agents:run'], team: 'red', iat: expect.any(Number), exp: expect.any(Number) } },
        });
        expect(row!.payload).not.toContain(token.split('.')[2]!);
      } finally {
        await db.close();
      }
    });
  });
}
