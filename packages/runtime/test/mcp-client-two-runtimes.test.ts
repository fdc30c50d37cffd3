/**
 * Two runtimes: an agent on the first calls `run_agent` on the second's `/mcp`, each user with
 * their own `svc_pat_` token for the second runtime, chosen per run by `headers(ctx)` from who
 * the run acts for. The second runtime runs (and traces) the work as that user. The second
 * runtime stores on SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { mcpServer } from '../src/mcp-client/mcp-server.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { sqliteTestDatabase, testDatabaseKinds } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;
const KEY_A = 'first-runtime-security-key';
const KEY_B = 'second-runtime-security-key';

async function mint(rt: StartedRuntime, key: string, name: string, scopes: string[]): Promise<string> {
  const res = await call(rt.url, 'POST', '/service-accounts', { token: key, body: { name, scopes: scopes.map((scope) => ({ scope })) } });
  expect(res.status).toBe(201);
  return res.body.token as string;
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`an agent calling another runtime's MCP endpoint as its user, second runtime on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let first: StartedRuntime;
    let second: StartedRuntime;
    /** Each user's token on the first runtime, and (the vault headers(ctx) reads) on the second. */
    const onFirst = new Map<string, string>();
    const onSecond = new Map<string, string>();

    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      second = await startRuntime(kind, { agents: testComponents(model).agents, mcp_server: true, env: { OS_SECURITY_KEY: KEY_B } });
      const other = mcpServer({
        id: 'second-runtime',
        url: `${second.url}/mcp`,
        allowPrivateHosts: ['127.0.0.1'],
        include: ['run_agent'],
        // The run's principal is the user signed in on the first runtime (sa:<name>).
        headers: ({ principal }) => ({ authorization: `Bearer ${onSecond.get(principal?.userId ?? '') ?? 'none'}` }),
      });
      first = await startRuntime(sqliteTestDatabase, { agents: [new Agent({ id: 'delegate', tools: [other], model })], env: { OS_SECURITY_KEY: KEY_A } });
      for (const user of ['ann', 'bob']) {
        onFirst.set(`sa:${user}`, await mint(first, KEY_A, user, ['agents:run', 'agents:read']));
        onSecond.set(`sa:${user}`, await mint(second, KEY_B, user, ['agents:run', 'agents:read', 'config:read']));
      }
    }, 60_000);
    afterAll(async () => {
      await first?.stop();
      await second?.stop();
      await fake?.close();
    });

    it('runs the other runtime’s agent as the calling user, whose traces there show that user', async () => {
      for (const user of ['ann', 'bob']) {
        const before = fake.requests.length;
        fake.script(
          { kind: 'tool-call', name: 'run_agent', arguments: { agent_id: 'writer', message: `Write for ${user}` } },
          { kind: 'text', text: `Written for ${user}` },
          { kind: 'text', text: 'Delegated.' },
        );
        const run = await call(first.url, 'POST', '/agents/delegate/runs', { token: onFirst.get(`sa:${user}`)!, body: { message: 'delegate it', stream: false } });
        expect(run.body).toMatchObject({ status: 'COMPLETED', content: 'Delegated.', user_id: `sa:${user}` });
        // What the second runtime answered reached the first one's model.
        const answer = JSON.parse(fake.requests[before + 2]!.conversation.toolResults.at(-1)!) as Json;
        expect(answer).toMatchObject({ status: 'COMPLETED', content: `Written for ${user}` });
        const trace = await eventually(async () => {
          const t = await call(second.url, 'GET', `/traces/${answer.run_id}`, { token: KEY_B });
          return t.status === 200 && t.body.status !== 'RUNNING' ? (t.body as Json) : undefined;
        }, 10_000, 'the second runtime’s trace');
        expect(trace).toMatchObject({ component_id: 'writer', user_id: `sa:${user}`, status: 'COMPLETED' });
      }
      const servers = (await call(first.url, 'GET', '/mcp-servers', { token: KEY_A })).body.data as Json[];
      expect(servers).toEqual([expect.objectContaining({ id: 'second-runtime', per_user: true, connections: 2, tools: [{ name: 'run_agent', requires_confirmation: false }] })]);
    });

    it('shows a refused token to the model as a tool error naming the server, without failing the run', async () => {
      // A user whose connection is open: the call is refused, and the model reads why.
      onSecond.set('sa:ann', 'svc_pat_revokedOrWrong000000000000000');
      const before = fake.requests.length;
      fake.script({ kind: 'tool-call', name: 'run_agent', arguments: { agent_id: 'writer', message: 'again' } }, { kind: 'text', text: 'Could not.' });
      const refused = await call(first.url, 'POST', '/agents/delegate/runs', { token: onFirst.get('sa:ann')!, body: { message: 'delegate it', stream: false } });
      expect(refused.body.status).toBe('COMPLETED');
      expect(fake.requests[before + 1]!.conversation.toolResults.at(-1)).toMatch(/^Tool run_agent failed: MCP server "second-runtime" demands a sign-in the runtime cannot do/);
      // A user whose connection is new: the listing itself is refused.
      onFirst.set('sa:carol', await mint(first, KEY_A, 'carol', ['agents:run']));
      fake.script({ kind: 'text', text: 'No tools.' });
      const run = await call(first.url, 'POST', '/agents/delegate/runs', { token: onFirst.get('sa:carol')!, body: { message: 'delegate it', stream: false } });
      expect(run.body.status).toBe('COMPLETED');
      const servers = (await call(first.url, 'GET', '/mcp-servers', { token: KEY_A })).body.data as Json[];
      expect(servers[0]!.error).toMatch(/^MCP server "second-runtime" demands a sign-in the runtime cannot do/);
    });
  });
}
