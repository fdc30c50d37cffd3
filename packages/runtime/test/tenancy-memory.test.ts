/**
 * What an agent remembers in a run stays in the run's tenant (issue 25, point 2): the memory a
 * run of alice in acme notes is written with acme (taken from the run's row), recalled into
 * later prompts of alice in acme only, never of the alice of globex, whose runs and listings
 * never see it. On SQLite and PostgreSQL, RS256 JWTs with an `org_id` claim.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds } from './support/databases.js';
import { noteTaker } from './support/note-taker.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { sign, signingKey, type SigningKey } from './support/jwt.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const SCOPES = ['memories:read', 'agents:run'];

let key: SigningKey;
let fake: FakeLlm;
/** The system text of the last model call for this message. */
const systemOf = (message: string) => fake.requests.filter((r) => r.conversation.lastUserMessage === message).at(-1)!.conversation.system;

beforeAll(async () => {
  key = await signingKey('RS256', 'tenant-mem');
  fake = await startFakeLlm({ reply: noteTaker });
});
afterAll(async () => {
  await fake?.close();
});

for (const kind of testDatabaseKinds) {
  describe.runIf(kind.available)(`memories in runs under tenancy on ${kind.kind}`, () => {
    let rt: StartedRuntime;
    let acme: string;
    let globex: string;
    const run = async (token: string, message: string): Promise<void> => {
      const res = await call(rt.url, 'POST', '/agents/assistant/runs', { token, body: { message, stream: false } });
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ status: 'COMPLETED' });
    };
    const listed = async (token: string): Promise<string[]> => (await call(rt.url, 'GET', '/memories', { token })).body.data.map((m: Json) => m.memory);

    beforeAll(async () => {
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      rt = await startRuntime(kind, {
        agents: [new Agent({ id: 'assistant', model, memory: true })],
        authorization: true,
        authorization_config: { verification_keys: [key.publicPem], tenant_claim: 'org_id' },
      });
      acme = await sign(key, { claims: { sub: 'alice', org_id: 'acme', scopes: SCOPES } });
      globex = await sign(key, { claims: { sub: 'alice', org_id: 'globex', scopes: SCOPES } });
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('a fact noted in one tenant is recalled there only, for the same sub', async () => {
      await run(acme, 'Note that Alice flies gliders.');
      expect(await listed(acme)).toEqual(['Alice flies gliders']);
      expect(await listed(globex)).toEqual([]);
      const [row] = await rt.runtime.db.query<{ tenant_id: string | null }>("SELECT tenant_id FROM svc_memories WHERE memory = 'Alice flies gliders'");
      expect(row?.tenant_id).toBe('acme');

      await run(globex, 'Any weekend ideas for me?');
      expect(systemOf('Any weekend ideas for me?')).not.toContain('gliders');
      await run(acme, 'Any weekend ideas?');
      expect(systemOf('Any weekend ideas?')).toContain('Alice flies gliders');
    });
  });
}
