/**
 * Budgets end to end, on SQLite and PostgreSQL, with the loopback model server reporting 12
 * input and 5 output tokens per call: a token budget stops the run that would cross it (before
 * its next model call, ERROR BUDGET_EXCEEDED, nothing left RUNNING) and refuses the next run
 * with 429, Retry-After and the budget in the body; a runs budget refuses at the start;
 * /budgets is admin-only CRUD (code budgets read-only); /usage shows a caller its own figures
 * and admins anyone's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { parseSse } from './support/sse.js';
import { eventually } from './support/eventually.js';
import type { Runnable } from '../src/run/execution.js';
import { callTool, initialize } from './support/mcp-raw.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;
const KEY = 'budgets-security-key-0123456789';
const PER_CALL = 17;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`budgets (${kind.kind})`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    const admin = { token: KEY };
    const run = (agent: string, body: Json, token = KEY) => call(rt.url, 'POST', `/agents/${agent}/runs`, { token, body: { stream: false, ...body } });

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams } = testComponents(model);
      rt = await startRuntime(kind, {
        agents,
        teams,
        mcp_server: true,
        env: { OS_SECURITY_KEY: KEY, MODEL_PRICES_JSON: JSON.stringify({ 'fake-model': { input: 1, output: 2 } }) },
        budgets: [
          { id: 'alice-tokens', scope: 'principal', subject: 'alice', metric: 'tokens', window: 'day', limit: 40 },
          { id: 'writer-runs', scope: 'agent', subject: 'writer', metric: 'runs', window: 'day', limit: 2 },
        ],
      });
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('stops the run that would cross a token budget before its next model call, and refuses the next run with 429', async () => {
      // Two model calls (the tool call, then the answer): 34 of 40 tokens.
      const first = await run('weather', { message: 'Weather?', user_id: 'alice' });
      expect(first.body).toMatchObject({ status: 'COMPLETED', metrics: { input_tokens: 24, output_tokens: 10 } });
      // Admitted at 34; its first call takes it to 51, so its second is refused.
      const calls = fake.requests.length;
      const streamed = await fetch(`${rt.url}/agents/weather/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Again?', user_id: 'alice' }),
      });
      const events = parseSse(await streamed.text());
      expect(fake.requests.length - calls).toBe(1);
      const last = events.at(-1)!;
      expect(last.event).toBe('RunError');
      expect(last.data).toMatchObject({ error_type: 'BUDGET_EXCEEDED' });
      expect(last.data.content).toMatch(/^Budget "alice-tokens" exceeded: principal alice has used 51 tokens of 40 tokens this day; the run stopped before its next model call/);
      const second = await call(rt.url, 'GET', `/agents/weather/runs/${last.data.run_id}`, admin);
      expect(second.body).toMatchObject({ status: 'ERROR', error: last.data.content, metrics: { input_tokens: 12, output_tokens: 5 } });
      const third = await run('weather', { message: 'Once more?', user_id: 'alice' });
      expect(third.status).toBe(429);
      const retryAfter = Number(third.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(third.body).toMatchObject({
        error_code: 'BUDGET_EXCEEDED',
        retry_after: retryAfter,
        budget: { id: 'alice-tokens', scope: 'principal', subject: 'alice', metric: 'tokens', window: 'day', limit: 40, used: 51 },
      });
      // The OpenAPI document names this answer on the run routes.
      const doc = (await call(rt.url, 'GET', '/openapi.json')).body;
      const documented = doc.paths['/agents/{agent_id}/runs'].post.responses['429'];
      expect(documented.content['application/json'].schema.$ref).toBe('#/components/schemas/BudgetExceeded');
      expect(Object.keys(doc.components.schemas.BudgetExceeded.properties).sort()).toEqual([...Object.keys(third.body)].sort());
      // Nothing of alice's is left running; another user is not limited.
      const sessions = await call(rt.url, 'GET', '/sessions?user_id=alice&limit=50', admin);
      expect(JSON.stringify(sessions.body)).not.toContain('"RUNNING"');
      expect((await run('weather', { message: 'Bob here', user_id: 'bob' })).body).toMatchObject({ status: 'COMPLETED' });
    });

    it('counts runs at the start: a runs budget refuses the one past it', async () => {
      expect((await run('writer', { message: 'one' })).status).toBe(200);
      expect((await run('writer', { message: 'two' })).status).toBe(200);
      const refused = await run('writer', { message: 'three' });
      expect(refused.status).toBe(429);
      expect(refused.body.budget).toMatchObject({ id: 'writer-runs', scope: 'agent', subject: 'writer', metric: 'runs', limit: 2, used: 2 });
      // A background run is checked by the same runner: refused too, nothing queued.
      expect((await run('writer', { message: 'four', background: true })).status).toBe(429);
    });

    it('shows usage: admins anyone\'s, a caller its own, figures and cost right', async () => {
      const usage = await call(rt.url, 'GET', '/usage?principal=alice', admin);
      expect(usage.status).toBe(200);
      const line = usage.body.budgets.find((b: Json) => b.budget.id === 'alice-tokens');
      // Three calls of 12 + 5 tokens; priced at 1 and 2 USD per million.
      expect(line).toMatchObject({ subject: 'alice', used: 3 * PER_CALL, remaining: 0, runs: 2, input_tokens: 36, output_tokens: 15 });
      expect(line.cost_usd).toBeCloseTo((36 * 1 + 15 * 2) / 1e6, 12);
      expect(line.resets_at - line.window_start).toBe(86_400);
      const agent = await call(rt.url, 'GET', '/usage?agent=writer', admin);
      expect(agent.body.budgets).toEqual([expect.objectContaining({ subject: 'writer', used: 2, runs: 2 })]);

      // A service account sees its own figures only, and may not manage budgets.
      const minted = await call(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'ci-bot', scopes: [{ scope: 'agents:run' }, { scope: 'agents:read' }] } });
      const bot = minted.body.token as string;
      await call(rt.url, 'POST', '/budgets', { token: KEY, body: { id: 'bots', scope: 'principal', metric: 'runs', window: 'month', limit: 5 } });
      expect((await run('weather', { message: 'bot run' }, bot)).body).toMatchObject({ status: 'COMPLETED', user_id: 'sa:ci-bot' });
      const own = await call(rt.url, 'GET', '/usage', { token: bot });
      expect(own.body).toMatchObject({ principal: 'sa:ci-bot', tenant: null });
      expect(own.body.budgets).toEqual([expect.objectContaining({ budget: expect.objectContaining({ id: 'bots' }), subject: 'sa:ci-bot', used: 1, remaining: 4 })]);
      expect((await call(rt.url, 'GET', '/usage?principal=alice', { token: bot })).status).toBe(403);
      expect((await call(rt.url, 'GET', '/usage?principal=sa:ci-bot', { token: bot })).status).toBe(200);
      expect((await call(rt.url, 'GET', '/budgets', { token: bot })).status).toBe(403);
      expect((await call(rt.url, 'POST', '/budgets', { token: bot, body: { scope: 'agent', metric: 'runs', window: 'day', limit: 1 } })).status).toBe(403);
    });

    it('manages budgets through /budgets: create, read, replace, delete; code budgets are read-only', async () => {
      const created = await call(rt.url, 'POST', '/budgets', { token: KEY, body: { scope: 'tenant', subject: 'acme', metric: 'cost', window: 'month', limit: 2.5 } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ scope: 'tenant', subject: 'acme', metric: 'cost', window: 'month', limit: 2.5, source: 'api' });
      const id = created.body.id as string;
      expect((await call(rt.url, 'GET', `/budgets/${id}`, admin)).body).toEqual(created.body);
      const list = await call(rt.url, 'GET', '/budgets', admin);
      expect(list.body.data.map((b: Json) => b.id)).toEqual(expect.arrayContaining(['alice-tokens', 'writer-runs', id]));
      expect(list.body.data[0]).toMatchObject({ id: 'alice-tokens', source: 'code', created_at: null });
      const replaced = await call(rt.url, 'PUT', `/budgets/${id}`, { token: KEY, body: { scope: 'tenant', subject: 'acme', metric: 'cost', window: 'day', limit: 1 } });
      expect(replaced.body).toMatchObject({ id, window: 'day', limit: 1 });
      expect((await call(rt.url, 'POST', '/budgets', { token: KEY, body: { id, scope: 'agent', metric: 'runs', window: 'day', limit: 1 } })).status).toBe(409);
      expect((await call(rt.url, 'POST', '/budgets', { token: KEY, body: { id: 'alice-tokens', scope: 'agent', metric: 'runs', window: 'day', limit: 1 } })).status).toBe(409);
      expect((await call(rt.url, 'PUT', '/budgets/alice-tokens', { token: KEY, body: { scope: 'agent', metric: 'runs', window: 'day', limit: 1 } })).status).toBe(409);
      expect((await call(rt.url, 'DELETE', '/budgets/alice-tokens', admin)).status).toBe(409);
      const fractional = await call(rt.url, 'POST', '/budgets', { token: KEY, body: { scope: 'agent', metric: 'tokens', window: 'day', limit: 1.5 } });
      expect(fractional).toMatchObject({ status: 422, body: { error_code: 'VALIDATION_ERROR' } });
      expect((await call(rt.url, 'DELETE', `/budgets/${id}`, admin)).status).toBe(204);
      expect((await call(rt.url, 'GET', `/budgets/${id}`, admin)).status).toBe(404);
      expect((await call(rt.url, 'DELETE', `/budgets/${id}`, admin)).status).toBe(404);
    });

    it('checks every way a run starts: schedules, MCP run_agent, teams (and their members\' model calls)', async () => {
      const block = await call(rt.url, 'POST', '/budgets', { token: KEY, body: { id: 'no-dave', scope: 'principal', subject: 'sa:dave', metric: 'runs', window: 'hour', limit: 0 } });
      expect(block.status).toBe(201);
      // A schedule runs as its creator's user: an occurrence the budget refuses is recorded failed, naming it.
      const daveToken = (await call(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'dave', scopes: [{ scope: 'schedules:write' }, { scope: 'agents:run' }], allow_privileged_scopes: true } })).body.token as string;
      const schedule = await call(rt.url, 'POST', '/schedules', { token: daveToken, body: { cron: '0 0 1 1 *', target: { kind: 'agent', id: 'weather' }, input: { message: 'scheduled' } } });
      expect(schedule.status).toBe(201);
      const fired = await call(rt.url, 'POST', `/schedules/${schedule.body.schedule_id}/trigger`, { token: daveToken });
      expect(fired.body).toMatchObject({ state: 'failed', run_id: null, error: expect.stringMatching(/^Budget "no-dave" exceeded: principal sa:dave has used 0 runs of 0 runs this hour/) });

      // MCP run_agent goes through the same runner: a tool error naming the budget.
      const mcpUrl = `${rt.url}/mcp`;
      const auth = { authorization: `Bearer ${daveToken}` };
      const session = await initialize(mcpUrl, auth);
      const answer = await callTool(mcpUrl, session, 1, 'run_agent', { agent_id: 'weather', message: 'via MCP' }, auth).result;
      expect(answer.result.isError).toBe(true);
      expect(JSON.stringify(answer.result.content)).toContain('Budget \\"no-dave\\" exceeded');
      await call(rt.url, 'DELETE', '/budgets/no-dave', admin);

      // A team's leader and its members call the model inside one run: each call is checked and counted.
      await call(rt.url, 'POST', '/budgets', { token: KEY, body: { id: 'erin-tokens', scope: 'principal', subject: 'erin', metric: 'tokens', window: 'month', limit: 1 } });
      const teamRun = await call(rt.url, 'POST', '/teams/router/runs', { token: KEY, body: { message: 'route me', stream: false, user_id: 'erin' } });
      expect(teamRun.body).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/^Budget "erin-tokens" exceeded/) });
      const erin = await call(rt.url, 'GET', '/usage?principal=erin', admin);
      expect(erin.body.budgets.find((b: Json) => b.budget.id === 'erin-tokens')).toMatchObject({ used: PER_CALL, runs: 1 });
      await call(rt.url, 'DELETE', '/budgets/erin-tokens', admin);
    });

    it("counts a caller's tenant (principal.tenantId), also for a background run that a job starts later", async () => {
      await call(rt.url, 'POST', '/budgets', { token: KEY, body: { id: 'acme-tokens', scope: 'tenant', subject: 'acme', metric: 'tokens', window: 'day', limit: 1 } });
      const weather = rt.runtime.agents.find((a) => a.id === 'weather') as Runnable;
      const principal = { kind: 'jwt', userId: 'frank', scopes: [], tenantId: 'acme' };
      const submitted = await rt.runtime.durable.submit({ component: weather, message: 'tenant run', userId: 'frank', principal, background: true });
      expect(submitted.kind).toBe('queued');
      const runId = submitted.kind === 'queued' ? submitted.record.run_id : '';
      const ended = await eventually(async () => {
        const r = await call(rt.url, 'GET', `/agents/weather/runs/${runId}`, admin);
        return r.body.status === 'ERROR' || r.body.status === 'COMPLETED' ? r.body : undefined;
      }, 15_000, 'the background run to end');
      expect(ended).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/^Budget "acme-tokens" exceeded: tenant acme has used 17 tokens of 1 tokens/) });
      const usage = await call(rt.url, 'GET', '/usage?tenant=acme', admin);
      expect(usage.body.budgets).toEqual([expect.objectContaining({ subject: 'acme', used: PER_CALL, runs: 1 })]);
      // The next one is refused before it is queued.
      await expect(rt.runtime.durable.submit({ component: weather, message: 'again', userId: 'frank', principal, background: true })).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED', status: 429 });
      await call(rt.url, 'DELETE', '/budgets/acme-tokens', admin);
    });
  });
}
