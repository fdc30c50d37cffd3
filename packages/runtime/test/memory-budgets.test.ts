/**
 * Memory's own model calls count against the run's budgets, on SQLite and PostgreSQL, with the
 * loopback model server reporting 12 input and 5 output tokens per call: the extraction after a
 * run and the summary before one add their tokens to the user's budget (the summary also to the
 * run's metrics; the extraction, made after the run was saved, to the budget only), and a used-up
 * budget skips the extraction instead of calling the model past it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { EXTRACTION_MARKER } from '../src/memory/extraction.js';
import { SUMMARY_MARKER } from '../src/memory/summaries.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;
const KEY = 'memory-budgets-security-key-0123456789';
const PER_CALL = 17;

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`memory's model calls and budgets (${kind.kind})`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    const admin = { token: KEY };
    const run = (agent: string, body: Json) => call(rt.url, 'POST', `/agents/${agent}/runs`, { token: KEY, body: { stream: false, ...body } });
    const tokensUsed = async (principal: string): Promise<number> => {
      const usage = await call(rt.url, 'GET', `/usage?principal=${principal}`, admin);
      expect(usage.status).toBe(200);
      return usage.body.budgets.find((b: Json) => b.subject === principal).used as number;
    };
    const spansOf = async (runId: string): Promise<Json[]> => {
      const all = (s: Json): Json[] => [s, ...s.children.flatMap(all)];
      return (((await call(rt.url, 'GET', `/traces/${runId}`, admin)).body.spans ?? []) as Json[]).flatMap(all);
    };

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const agents = [
        new Agent({ id: 'noter', model, instructions: 'Be brief.', memory: { recall: false, tool: false, extract: true } }),
        // A budget of 60 tokens: a second run's history (the first turn) no longer fits and is summarised.
        new Agent({ id: 'folder', model, instructions: 'Be brief.', memory: { recall: false, tool: false, summaries: { budgetTokens: 60 } } }),
      ];
      rt = await startRuntime(kind, {
        agents,
        env: { OS_SECURITY_KEY: KEY },
        budgets: [
          { id: 'carol-tokens', scope: 'principal', subject: 'carol', metric: 'tokens', window: 'day', limit: 1000 },
          { id: 'dave-tokens', scope: 'principal', subject: 'dave', metric: 'tokens', window: 'day', limit: PER_CALL },
          { id: 'erin-tokens', scope: 'principal', subject: 'erin', metric: 'tokens', window: 'day', limit: 1000 },
        ],
      });
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('counts the extraction after a run against the user\'s budget, not in the saved run', async () => {
      const done = await run('noter', { message: 'I keep bees on the roof.', user_id: 'carol' });
      expect(done.body).toMatchObject({ status: 'COMPLETED', metrics: { input_tokens: 12, output_tokens: 5 } });
      await eventually(() => fake.requests.find((r) => r.conversation.system.includes(EXTRACTION_MARKER) && r.conversation.lastUserMessage.includes('bees')), 10_000, 'the extraction call');
      await eventually(async () => ((await tokensUsed('carol')) === 2 * PER_CALL ? true : undefined), 10_000, 'the extraction counted');
      expect((await call(rt.url, 'GET', `/agents/noter/runs/${done.body.run_id}`, admin)).body.metrics).toMatchObject({ input_tokens: 12, output_tokens: 5 });
    });

    it('skips the extraction when the run used up the budget', async () => {
      const done = await run('noter', { message: 'I moved to Lisbon last spring.', user_id: 'dave' });
      expect(done.body.status).toBe('COMPLETED');
      const span = await eventually(async () => (await spansOf(done.body.run_id)).find((s) => s.name === 'memory extraction' && s.status === 'error'), 10_000, 'the skipped extraction');
      expect(String(span.attributes.error)).toMatch(/Budget "dave-tokens" exceeded/);
      expect(fake.requests.some((r) => r.conversation.system.includes(EXTRACTION_MARKER) && r.conversation.lastUserMessage.includes('Lisbon'))).toBe(false);
      expect(await tokensUsed('dave')).toBe(PER_CALL);
    });

    it('counts a session summary in the run and against the budget', async () => {
      const first = await run('folder', { message: `turn one: ${'the hives, the honey and the spring plans. '.repeat(8)}`, user_id: 'erin', session_id: 'erin-s' });
      expect(first.body.status).toBe('COMPLETED');
      const second = await run('folder', { message: 'turn two: what next?', user_id: 'erin', session_id: 'erin-s' });
      expect(second.body.status).toBe('COMPLETED');
      expect(fake.requests.filter((r) => r.conversation.system.includes(SUMMARY_MARKER))).toHaveLength(1);
      // The second run made two calls: the summary and its answer.
      expect(second.body.metrics).toMatchObject({ input_tokens: 24, output_tokens: 10 });
      expect(await tokensUsed('erin')).toBe(3 * PER_CALL);
    });
  });
}
