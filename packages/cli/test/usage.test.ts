/**
 * `svc usage` against a REAL runtime on SQLite whose agent calls a loopback fake LLM (12 + 5
 * tokens a call) and carries budgets: after runs through the API, the built CLI prints the
 * caller's consumption against each budget as a table and as one JSON document (GET /usage's
 * answer), an admin names another principal, a non-admin naming another is exit 1 (403), and a
 * bad command line is exit 2 before any request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, OpenAIChatModel } from '@svc/runtime';
import { startFakeLlm, type FakeLlm } from '../../runtime/test/support/fake-llm.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { api, deadPort, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

describe('svc usage', () => {
  let fake: FakeLlm;
  let rt: TestRuntime;
  let box: Sandbox;
  let bot: string;
  const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) => runCli(['usage', ...args, '--url', rt.url], { ...box, env });

  beforeAll(async () => {
    await ensureBuilt();
    fake = await startFakeLlm();
    const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    rt = await startSqliteRuntime({
      agents: [new Agent({ id: 'writer', model })],
      env: { OS_SECURITY_KEY: KEY },
      budgets: [
        { id: 'daily-tokens', scope: 'principal', metric: 'tokens', window: 'day', limit: 1000 },
        { id: 'monthly-runs', scope: 'principal', metric: 'runs', window: 'month', limit: 10 },
      ],
    });
    box = sandbox();
    const minted = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'cli-bot', scopes: [{ scope: 'agents:run' }] } });
    bot = minted.body.token as string;
    for (let i = 0; i < 2; i++) {
      const ran = await api(rt.url, 'POST', '/agents/writer/runs', { token: bot, body: { message: `run ${i}`, stream: false } });
      if (ran.status !== 200) throw new Error(`run ${i} answered ${ran.status}`);
    }
  });
  afterAll(async () => {
    await rt?.stop();
    await fake?.close();
    box?.cleanup();
  });

  it("prints the caller's own usage against each budget, as a table and as JSON", async () => {
    const text = await run([], { SVC_ADMIN_TOKEN: bot });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Usage of principal sa:cli-bot');
    expect(lines[1]).toMatch(/^Budget +Applies to +Metric +Used +Limit +Remaining +Resets$/);
    expect(lines[2]).toMatch(/^daily-tokens +principal:sa:cli-bot +tokens\/day +34 +1000 +966 +\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(lines[3]).toMatch(/^monthly-runs +principal:sa:cli-bot +runs\/month +2 +10 +8 +\d{4}-\d\d-\d\d 00:00 UTC$/);
    const json = await run(['--json'], { SVC_ADMIN_TOKEN: bot });
    expect(json.code).toBe(0);
    const doc = jsonOf(json) as Json;
    expect(doc).toEqual((await api(rt.url, 'GET', '/usage', { token: bot })).body);
    expect(doc.budgets).toHaveLength(2);
  });

  it('lets an admin name a principal; refuses a non-admin naming another (exit 1)', async () => {
    const admin = await run(['--principal', 'sa:cli-bot', '--json']);
    expect(admin.code).toBe(0);
    expect((jsonOf(admin) as Json).budgets[0]).toMatchObject({ subject: 'sa:cli-bot', used: 34 });
    const refused = await run(['--principal', 'alice'], { SVC_ADMIN_TOKEN: bot });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not allowed/);
    const none = await run(['--agent', 'writer']);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No budgets apply.');
  });

  it('a bad command line exits 2 before any request; an unreachable runtime exits 1', async () => {
    const bad = await runCli(['usage', '--principal', '  ', '--url', rt.url], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    const help = await runCli(['usage', '--help'], { ...box, env: {} });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 usage shown');
    const gone = await runCli(['usage', '--url', `http://127.0.0.1:${await deadPort()}`], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/No running runtime found/);
  });
});
