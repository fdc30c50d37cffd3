/**
 * A team's leader with tools of its own: the real `server-everything` over stdio and a function
 * tool, offered to the leader's model beside its hand-off tool and called as an agent calls
 * them (the result, an image included, back to the leader; events; the run's record), while the
 * members keep working; the server is listed under the team in /config and GET /mcp-servers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { mcpServer } from '../src/mcp-client/mcp-server.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { Team } from '../src/team/team.js';
import { tool } from '../src/tools/function-tool.js';
import { sqliteTestDatabase } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { everythingStdio } from './support/mcp-servers.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

describe('a team leader using an MCP server and a tool of its own', () => {
  let fake: FakeLlm;
  let rt: StartedRuntime;

  beforeAll(async () => {
    fake = await startFakeLlm();
    const model = new OpenAIChatModel({ model: 'fake-model', apiKey: 'sk-test', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const clock = tool({ name: 'team_clock', description: 'The time', input: z.object({}), execute: () => '12:00' });
    const writer = new Agent({ id: 'writer', instructions: 'Write.', model });
    rt = await startRuntime(sqliteTestDatabase, {
      teams: [
        new Team({
          id: 'desk',
          members: [writer],
          model,
          tools: [clock, mcpServer({ id: 'everything', ...everythingStdio(), include: ['echo', 'get-tiny-image', 'get-sum'], requiresConfirmation: ['get-sum'] })],
        }),
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await rt?.stop();
    await fake?.close();
  });

  const run = async (message: string): Promise<Json> => (await call(rt.url, 'POST', '/teams/desk/runs', { body: { message, stream: false, user_id: 'ann' } })).body;

  it('offers the leader its hand-off tool, its own tool and the server’s, and calls them', async () => {
    const before = fake.requests.length;
    fake.script(
      { kind: 'tool-calls', calls: [{ name: 'echo', arguments: { message: 'hello desk' } }, { name: 'team_clock', arguments: {} }] },
      { kind: 'tool-call', name: 'delegate_task_to_member', arguments: { member_id: 'writer', task: 'Write it' } },
      { kind: 'text', text: 'Written.' },
      { kind: 'text', text: 'Done: hello desk at 12:00.' },
    );
    const done = await run('Echo and delegate');
    expect(done.status).toBe('COMPLETED');
    expect(done.content).toBe('Done: hello desk at 12:00.');
    const offered = ((fake.requests[before]!.body as Json).tools as Json[]).map((t) => t.function.name);
    expect(offered.slice(0, 2)).toEqual(['delegate_task_to_member', 'team_clock']);
    expect(offered.slice(2).toSorted()).toEqual(['echo', 'get-sum', 'get-tiny-image']);
    expect(fake.requests[before + 1]!.conversation.toolResults).toEqual(['Echo: hello desk', '12:00']);
    expect(done.tools.map((t: Json) => [t.tool_name, t.result, t.error])).toEqual([
      ['echo', 'Echo: hello desk', null],
      ['team_clock', '12:00', null],
      ['delegate_task_to_member', 'Written.', null],
    ]);
  });

  it('hands the leader an image as an image', async () => {
    const before = fake.requests.length;
    fake.script({ kind: 'tool-call', name: 'get-tiny-image', arguments: {} }, { kind: 'text', text: 'A logo.' });
    expect((await run('Show the logo')).status).toBe('COMPLETED');
    const last = ((fake.requests[before + 1]!.body as Json).messages as Json[]).at(-1)!;
    expect(last).toMatchObject({ role: 'user', content: [{ type: 'text' }, { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } }] });
  });

  it('declines a tool that needs confirmation, saying a team leader cannot ask for it', async () => {
    fake.script({ kind: 'tool-call', name: 'get-sum', arguments: { a: 1, b: 2 } }, { kind: 'text', text: 'Could not.' });
    const done = await run('Add');
    expect(done.status).toBe('COMPLETED');
    expect(done.tools[0]).toMatchObject({ tool_name: 'get-sum', result: null, error: "get-sum needs a person's confirmation, which a team's leader cannot ask for", confirmed: false });
  });

  it('lists the server under the team in /config and GET /mcp-servers', async () => {
    const config = await call(rt.url, 'GET', '/config');
    const desk = config.body.teams.find((t: Json) => t.id === 'desk');
    expect(desk.mcp_servers.map((s: Json) => [s.id, s.transport, s.status])).toEqual([['everything', 'stdio', 'connected']]);
    const listed = await call(rt.url, 'GET', '/mcp-servers');
    expect(listed.body.data.map((s: Json) => [s.agent_id, s.component_type, s.id])).toEqual([['desk', 'team', 'everything']]);
  });
});
