/**
 * `svc traces` against a REAL runtime on SQLite whose agents call a loopback fake LLM: runs are
 * made through the runtime's API, then the built CLI lists them and prints their span trees.
 * What it prints is checked against what the fake reported (tokens) and what the runtime's own
 * API answers for the same run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, OpenAIChatModel, tool } from '@svc/runtime';
import { eventually } from '../../runtime/test/support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../../runtime/test/support/fake-llm.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { REMOTE_HOST, startProxy, type TestProxy } from './support/proxy.js';
import { api, deadPort, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
/** What the fake LLM reports for every call; the tree must show exactly these. */
const USAGE = { inputTokens: 31, outputTokens: 7 };

type Json = Record<string, any>;

describe('svc traces', () => {
  let fake: FakeLlm;
  let rt: TestRuntime;
  let box: Sandbox;
  let proxy: TestProxy;
  let okRun: string;
  let failedRun: string;
  const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) => runCli(['traces', ...args], { ...box, env });
  const local = (args: string[], env?: Record<string, string | undefined>) => run([...args, '--url', rt.url], env);

  /** Runs the agent through the API and waits until the runtime has written the run's trace. */
  const agentRun = async (agent: string, message: string, session: string): Promise<Json> => {
    const res = await api(rt.url, 'POST', `/agents/${agent}/runs`, { token: KEY, body: { message, stream: false, user_id: 'u1', session_id: session } });
    expect(res.status).toBe(200);
    return eventually(async () => {
      const trace = await api(rt.url, 'GET', `/traces/${res.body.run_id}`, { token: KEY });
      return trace.status === 200 && trace.body.status !== 'RUNNING' ? (trace.body as Json) : undefined;
    }, 10_000, `the trace of ${res.body.run_id}`);
  };

  beforeAll(async () => {
    await ensureBuilt();
    fake = await startFakeLlm({ usage: USAGE });
    const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const getWeather = tool({ name: 'get_weather', description: 'Current weather for a city', input: z.object({ city: z.string() }), execute: ({ city }) => `It is sunny in ${city}` });
    const weather = new Agent({ id: 'weather', instructions: 'Use the tool.', tools: [getWeather], model });
    const writer = new Agent({ id: 'writer', model });
    rt = await startSqliteRuntime({ agents: [weather, writer], env: { OS_SECURITY_KEY: KEY } });
    proxy = await startProxy(rt.port);
    box = sandbox();
    okRun = (await agentRun('weather', 'Weather in Paris?', 'cli-s1')).run_id;
    // Start times are in ms: a pause keeps "newest first" unambiguous.
    await new Promise((r) => setTimeout(r, 5));
    fake.script({ kind: 'error', status: 400, message: 'no such model' });
    failedRun = (await agentRun('writer', 'fail please', 'cli-s2')).run_id;
  });
  afterAll(async () => {
    await proxy?.stop();
    await rt?.stop();
    await fake?.close();
    box?.cleanup();
  });

  it("prints one run's span tree in order, with the tokens the model reported and the totals on the root", async () => {
    const r = await local([okRun]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Run ${okRun} \\(agent weather, session cli-s1, user u1\\), started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`));
    expect(lines.slice(1)).toHaveLength(4);
    expect(lines[1]).toMatch(/^run agent:weather {2}\d+ ms {2}tokens 62 in \/ 14 out {2}COMPLETED$/);
    expect(lines[2]).toMatch(/^├─ model openai\/fake-model {2}\d+ ms {2}tokens 31 in \/ 7 out$/);
    expect(lines[3]).toMatch(/^├─ tool get_weather {2}\d+ ms {2}ok$/);
    expect(lines[4]).toMatch(/^└─ model openai\/fake-model {2}\d+ ms {2}tokens 31 in \/ 7 out$/);
  });

  it('--json prints the run and its spans as the runtime answers them, one document', async () => {
    const r = await local([okRun, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const body = jsonOf(r);
    expect(body).toEqual((await api(rt.url, 'GET', `/traces/${okRun}`, { token: KEY })).body);
    expect(body).toMatchObject({ run_id: okRun, component_type: 'agent', component_id: 'weather', status: 'COMPLETED', input_tokens: 62, output_tokens: 14 });
    const root = (body.spans as Json[])[0]!;
    expect(root.children.map((s: Json) => [s.kind, s.name, s.input_tokens, s.output_tokens])).toEqual([
      ['model', 'openai/fake-model', USAGE.inputTokens, USAGE.outputTokens],
      ['tool', 'get_weather', null, null],
      ['model', 'openai/fake-model', USAGE.inputTokens, USAGE.outputTokens],
    ]);
  });

  it('a failed run shows why on its root and on the failed model call', async () => {
    const r = await local([failedRun]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^run agent:writer {2}\d+ ms {2}tokens 0 in \/ 0 out {2}ERROR: .*no such model/);
    expect(lines[2]).toMatch(/^└─ model openai\/fake-model {2}\d+ ms {2}error: .*no such model/);
  });

  it('lists runs newest first as a table, and as one JSON document', async () => {
    const json = await local(['--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const page = jsonOf(json);
    expect((page.traces as Json[]).map((t) => [t.run_id, t.component_id, t.status, t.input_tokens, t.output_tokens])).toEqual([
      [failedRun, 'writer', 'ERROR', 0, 0],
      [okRun, 'weather', 'COMPLETED', 62, 14],
    ]);
    expect(page.next_cursor).toBeNull();
    expect(page.traces).toEqual((await api(rt.url, 'GET', '/traces', { token: KEY })).body.data);

    const text = await local([]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Run +Component +Status +Duration +Tokens in\/out +Started$/);
    expect(lines[1]).toMatch(new RegExp(`^${failedRun} +agent:writer +ERROR +\\d+ ms +0/0 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`));
    expect(lines[2]).toMatch(new RegExp(`^${okRun} +agent:weather +COMPLETED +\\d+ ms +62/14 +\\d{4}-`));
    expect(lines).toHaveLength(3);
  });

  it('filters and pages the list', async () => {
    const ids = async (args: string[]) => {
      const r = await local([...args, '--json']);
      expect(r.code).toBe(0);
      return jsonOf(r);
    };
    expect((await ids(['--agent', 'weather'])).traces).toMatchObject([{ run_id: okRun }]);
    expect((await ids(['--status', 'error'])).traces).toMatchObject([{ run_id: failedRun }]);
    expect((await ids(['--session', 'cli-s1'])).traces).toMatchObject([{ run_id: okRun }]);
    expect((await ids(['--user', 'u1', '--since', '1h', '--min-duration', '0'])).traces).toHaveLength(2);
    expect((await ids(['--team', 'router'])).traces).toEqual([]);
    expect((await ids(['--since', '2999-01-01'])).traces).toEqual([]);
    const first = await ids(['--limit', '1']);
    expect(first.traces).toMatchObject([{ run_id: failedRun }]);
    expect(first.next_cursor).toEqual(expect.any(String));
    expect((await ids(['--limit', '1', '--cursor', first.next_cursor as string])).traces).toMatchObject([{ run_id: okRun }]);
    const more = await local(['--limit', '1']);
    expect(more.stdout).toContain(`More runs match: raise --limit, narrow the filters, or pass --cursor ${first.next_cursor as string}`);
    const none = await local(['--agent', 'nobody']);
    expect(none.stdout.trim()).toBe('No runs found.');
  });

  it('an unknown run is "no trace for run X" (exit 1), in either mode', async () => {
    const text = await local(['no-such-run']);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain('Error: No trace for run no-such-run.');
    const json = await local(['no-such-run', '--json']);
    expect(json.code).toBe(1);
    expect(jsonOf(json)).toEqual({ error: 'No trace for run no-such-run.', hint: expect.stringContaining('svc traces lists recent runs') });
  });

  it.each([
    [['--agent', 'a', '--team', 'b'], "option '--agent <id>' cannot be used with option '--team <id>'"],
    [['--team', 'a', '--workflow', 'b'], "option '--team <id>' cannot be used with option '--workflow <id>'"],
    [['--since', 'yesterday'], 'Invalid --since: yesterday'],
    [['--limit', '0'], 'Invalid --limit: 0'],
    [['--limit', '101'], 'Invalid --limit: 101'],
    [['--status', 'running'], 'Invalid --status: running'],
    [['--min-duration', '-1'], 'Invalid --min-duration: -1'],
    [['some-run', '--agent', 'weather'], 'list filters (--agent) cannot be used with a run id'],
  ])('%j is a usage error (exit 2, stderr only) before any request', async (args, message) => {
    // A dead port: any request would have ended in exit 1 (unreachable), not a usage error.
    const r = await run([...args, '--url', `http://127.0.0.1:${await deadPort()}`, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("Try 'svc traces --help' for help.");
  });

  it('needs a credential the runtime accepts, holding traces:read', async () => {
    const none = await local(['--json'], {});
    expect(none.code).toBe(1);
    expect(jsonOf(none)).toMatchObject({ error: expect.stringContaining('requires a credential to read traces'), hint: expect.stringContaining('traces:read') });
    const wrong = await local(['--json'], { SVC_ADMIN_TOKEN: 'not-the-key' });
    expect(wrong.code).toBe(1);
    expect(jsonOf(wrong).error).toMatch(/rejected the credential/);
    expect(wrong.stdout).not.toContain('not-the-key');
    const minted = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'no-traces', scopes: [{ scope: 'agents:run' }] } });
    expect(minted.status).toBe(201);
    const forbidden = await local(['--json'], { SVC_ADMIN_TOKEN: minted.body.token });
    expect(forbidden.code).toBe(1);
    expect(jsonOf(forbidden).error).toMatch(/not allowed to read traces/);
  });

  it('finds the runtime by itself, and sends the credential to a remote plain-HTTP one only with --allow-http', async () => {
    const found = await run([okRun], { SVC_ADMIN_TOKEN: KEY, RUNTIME_URL: rt.url });
    expect(found.code).toBe(0);
    expect(found.stdout.split('\n')[0]).toContain(`Using runtime at ${rt.url}`);
    expect(found.stdout).toContain('run agent:weather');

    const remote = `http://${REMOTE_HOST}:${rt.port}`;
    const env = { SVC_ADMIN_TOKEN: KEY, HTTP_PROXY: proxy.url };
    const refused = await run(['--url', remote, '--json'], env);
    expect(refused.code).toBe(1);
    expect(jsonOf(refused)).toMatchObject({ error: expect.stringContaining('over plaintext HTTP'), hint: expect.stringContaining('--allow-http') });
    expect(proxy.seen.filter((u) => u.includes('/traces'))).toEqual([]);
    const allowed = await run(['--url', remote, '--allow-http', '--json'], env);
    expect(allowed.code).toBe(0);
    expect((jsonOf(allowed).traces as Json[]).map((t) => t.run_id)).toEqual([failedRun, okRun]);
    expect(proxy.seen).toContain(`${remote}/traces`);
  });
});
