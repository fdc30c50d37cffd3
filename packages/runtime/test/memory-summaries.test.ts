/**
 * Session summaries end to end on SQLite and PostgreSQL with the loopback model server: a long
 * session's prompt keeps its history within the agent's budget by carrying a summary of the
 * older turns; every earlier turn is either in the summary or in the prompt verbatim (nothing
 * dropped unsaid); the summary is stored, reused by later runs and refreshed incrementally (the
 * old summary plus only the newly folded turns); the runs stay stored; a failed summary call
 * never fails the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { SUMMARY_HEADING, SUMMARY_MARKER } from '../src/memory/summaries.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeConversation, type FakeLlm, type FakeReply } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Message = { role: string; content: string | null };

const BUDGET = 600;
const isSummary = (c: FakeConversation) => c.system.includes(SUMMARY_MARKER);
const turnsIn = (text: string): number[] => [...text.matchAll(/turn (\d+):/g)].map((m) => Number(m[1]));

/** The fake summariser lists the turns it has folded so far: the old summary's, then the new ones. */
function reply(c: FakeConversation): FakeReply | undefined {
  if (isSummary(c)) {
    if (c.lastUserMessage.includes('turn 99:')) return { kind: 'error', status: 500, message: 'summariser down' };
    const previous = /The summary so far:\n(.*)\n/.exec(c.lastUserMessage)?.[1];
    const earlier = previous ? turnsIn(previous) : [];
    const folded = turnsIn(c.lastUserMessage.slice(c.lastUserMessage.indexOf('The turns to fold in:')));
    return { kind: 'text', text: [...new Set([...earlier, ...folded])].map((n) => `turn ${n}:`).join(' ') };
  }
  return { kind: 'text', text: `You said: ${c.lastUserMessage}` };
}

const estimate = (m: Message) => Math.ceil((m.content ?? '').length / 4) + 4;

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`session summaries on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;

    beforeAll(async () => {
      fake = await startFakeLlm({ reply });
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const agents = [new Agent({ id: 'long', model, instructions: 'Be brief.', memory: { recall: false, tool: false, summaries: { budgetTokens: BUDGET } } })];
      rt = await startRuntime(kind, { agents });
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    const say = async (session: string, n: number): Promise<{ system: string; history: Message[] }> => {
      const message = `turn ${n}: ${'a long detail about the garden, the weather and the plans for the week. '.repeat(4)}`.trim();
      const res = await call(rt.url, 'POST', '/agents/long/runs', { body: { message, session_id: session, stream: false } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('COMPLETED');
      const request = fake.requests.filter((r) => !isSummary(r.conversation) && r.conversation.lastUserMessage.startsWith(`turn ${n}:`)).at(-1)!;
      const messages = (request.body as { messages: Message[] }).messages;
      // Without the instructions (first) and this run's message (last): the session's history.
      return { system: request.conversation.system, history: messages.slice(1, -1) };
    };

    it('keeps a long session within the budget with a summary, loses no turn, and refreshes the summary incrementally', async () => {
      const before = fake.requests.length;
      let summarised = 0;
      for (let n = 1; n <= 14; n++) {
        const { history } = await say('long-1', n);
        const tokens = history.reduce((sum, m) => sum + estimate(m), 0);
        expect(tokens, `turn ${n}`).toBeLessThanOrEqual(BUDGET);
        const summary = history.find((m) => m.role === 'system' && m.content!.startsWith(SUMMARY_HEADING));
        if (summary) summarised++;
        // Every earlier turn is in the summary or kept verbatim, in order.
        const kept = history.filter((m) => m.role === 'user').flatMap((m) => turnsIn(m.content!));
        const inSummary = summary ? turnsIn(summary.content!) : [];
        expect([...inSummary, ...kept], `turn ${n}`).toEqual(Array.from({ length: n - 1 }, (_, i) => i + 1));
      }
      expect(summarised).toBeGreaterThan(8);
      const summaryCalls = fake.requests.slice(before).filter((r) => isSummary(r.conversation));
      // Reused between refreshes, not made again for every run; later refreshes fold into the old summary.
      expect(summaryCalls.length).toBeGreaterThan(1);
      expect(summaryCalls.length).toBeLessThan(14);
      expect(summaryCalls.slice(1).every((r) => r.conversation.lastUserMessage.startsWith('The summary so far:'))).toBe(true);
      // The runs themselves are all still stored.
      expect((await call(rt.url, 'GET', '/sessions/long-1/runs')).body).toHaveLength(14);
    });

    it('a summary call that fails never fails the run: the prompt keeps the newest turns within the budget', async () => {
      for (let n = 95; n <= 99; n++) await say('long-2', n);
      const { history } = await say('long-2', 100);
      expect(history.reduce((sum, m) => sum + estimate(m), 0)).toBeLessThanOrEqual(BUDGET);
      expect(history.some((m) => m.role === 'user')).toBe(true);
    });
  });
}
