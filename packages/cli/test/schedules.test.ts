/**
 * `svc schedules` against a REAL runtime on SQLite whose agent calls a loopback fake LLM: the
 * built CLI creates a schedule (which then fires, its runs completing), lists it as a table and
 * as one JSON document, and deletes it; a refusal of the runtime (bad cron, unknown zone or
 * target) is exit 1 with its words; a bad command line is exit 2 before any request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, OpenAIChatModel } from '@svc/runtime';
import { eventually } from '../../runtime/test/support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../../runtime/test/support/fake-llm.js';
import { ensureBuilt, jsonOf, runCli, sandbox, type Sandbox } from './support/cli.js';
import { api, deadPort, startSqliteRuntime, type TestRuntime } from './support/runtime.js';

const KEY = 'test-admin-key';
type Json = Record<string, any>;

describe('svc schedules', () => {
  let fake: FakeLlm;
  let rt: TestRuntime;
  let box: Sandbox;
  const run = (args: string[], env: Record<string, string | undefined> = { SVC_ADMIN_TOKEN: KEY }) => runCli(['schedules', ...args], { ...box, env });
  const local = (args: string[], env?: Record<string, string | undefined>) => run([...args, '--url', rt.url], env);

  beforeAll(async () => {
    await ensureBuilt();
    fake = await startFakeLlm();
    const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    rt = await startSqliteRuntime({ agents: [new Agent({ id: 'writer', model })], env: { OS_SECURITY_KEY: KEY } });
    box = sandbox();
  });
  afterAll(async () => {
    await rt?.stop();
    await fake?.close();
    box?.cleanup();
  });

  it('creates a schedule that fires, lists it (table and JSON) and deletes it', async () => {
    const created = await local(['create', '--cron', '*/2 * * * * *', '--agent', 'writer', '-m', 'from the cli', '--name', 'cli-tick', '--timezone', 'Europe/Paris', '--json']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const schedule = jsonOf(created) as Json;
    expect(schedule).toMatchObject({ name: 'cli-tick', cron: '*/2 * * * * *', timezone: 'Europe/Paris', target: { kind: 'agent', id: 'writer' }, input: { message: 'from the cli' }, enabled: true });
    expect(schedule).toEqual((await api(rt.url, 'GET', `/schedules/${schedule.schedule_id}`, { token: KEY })).body);

    // It fires: an occurrence whose run completed with the message given.
    const occurrence = await eventually(async () => {
      const runs = (await api(rt.url, 'GET', `/schedules/${schedule.schedule_id}/runs`, { token: KEY })).body as Json[];
      return runs.find((o) => o.run_status === 'COMPLETED');
    }, 10_000, 'a scheduled run');
    const agentRun = (await api(rt.url, 'GET', `/agents/writer/runs/${occurrence.run_id}`, { token: KEY })).body as Json;
    expect(agentRun).toMatchObject({ status: 'COMPLETED', content: 'You said: from the cli' });

    const text = await local(['list']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Id +Name +Cron +Time zone +Target +Next run +Status$/);
    expect(lines[1]).toMatch(new RegExp(`^${schedule.schedule_id} +cli-tick +\\*/2 \\* \\* \\* \\* \\* +Europe/Paris +agent:writer +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC +enabled$`));
    expect(lines).toHaveLength(2);
    const json = await local(['list', '--json']);
    expect(json.code).toBe(0);
    expect((jsonOf(json).schedules as Json[]).map((s) => s.schedule_id)).toEqual([schedule.schedule_id]);

    const deleted = await local(['delete', schedule.schedule_id as string, '--json']);
    expect(deleted.code).toBe(0);
    expect(jsonOf(deleted)).toEqual({ deleted: schedule.schedule_id });
    expect((await api(rt.url, 'GET', `/schedules/${schedule.schedule_id}`, { token: KEY })).status).toBe(404);
    const empty = await local(['list']);
    expect(empty.stdout.trim()).toBe('No schedules found.');
    const again = await local(['delete', schedule.schedule_id as string, '--json']);
    expect(again.code).toBe(1);
    expect(jsonOf(again)).toEqual({ error: `No schedule with id ${schedule.schedule_id as string}.`, hint: expect.stringContaining('svc schedules list') });
  });

  it.each([
    [['--cron', '61 * * * *', '--agent', 'writer', '-m', 'x'], 'Invalid cron expression "61 * * * *": Invalid value for minute: 61'],
    [['--cron', '0 9 * * *', '--timezone', 'Mars/Olympus', '--agent', 'writer', '-m', 'x'], 'Unknown time zone "Mars/Olympus"'],
    [['--cron', '0 9 * * *', '--team', 'writer', '-m', 'x'], "Unknown target: no runnable team with id 'writer' is hosted by this runtime"],
  ])('create %j: the runtime refuses it, exit 1 with its words', async (args, message) => {
    const text = await local(['create', ...args]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`The runtime refused the schedule: ${message}`);
    const json = await local(['create', ...args, '--json']);
    expect(json.code).toBe(1);
    expect(jsonOf(json).error).toContain(message);
  });

  it.each([
    [['create', '--agent', 'writer', '-m', 'x'], "required option '--cron <expression>' not specified"],
    [['create', '--cron', '* * * * *', '-m', 'x'], 'name the target with one of --agent <id>, --team <id> or --workflow <id>'],
    [['create', '--cron', '* * * * *', '--agent', 'a', '--team', 'b', '-m', 'x'], "option '--agent <id>' cannot be used with option '--team <id>'"],
    [['create', '--cron', ' ', '--agent', 'a', '-m', 'x'], 'Invalid --cron: the value is empty'],
    [['create', '--cron', '* * * * *', '--agent', 'a'], "required option '-m, --message <text>' not specified"],
    [['delete'], "missing required argument 'schedule_id'"],
  ])('%j is a usage error (exit 2, stderr only) before any request', async (args, message) => {
    const r = await run([...args, '--url', `http://127.0.0.1:${await deadPort()}`, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
  });

  it('alone, or with an unknown subcommand, is a usage error naming the subcommands', async () => {
    const alone = await run(['--json']);
    expect(alone.code).toBe(2);
    expect(alone.stdout).toBe('');
    expect(alone.stderr).toContain("missing command: use 'svc schedules list', 'create' or 'delete'");
    const unknown = await run(['pause']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'pause' (use list, create or delete)");
  });

  it('needs a credential the runtime accepts, holding the schedules scopes', async () => {
    const none = await local(['list', '--json'], {});
    expect(none.code).toBe(1);
    expect(jsonOf(none)).toMatchObject({ error: expect.stringContaining('requires a credential to read schedules'), hint: expect.stringContaining('schedules:read') });
    const minted = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'reader', scopes: [{ scope: 'schedules:read' }], allow_privileged_scopes: true } });
    expect(minted.status).toBe(201);
    expect((await local(['list', '--json'], { SVC_ADMIN_TOKEN: minted.body.token })).code).toBe(0);
    const forbidden = await local(['create', '--cron', '0 9 * * *', '--agent', 'writer', '-m', 'x', '--json'], { SVC_ADMIN_TOKEN: minted.body.token });
    expect(forbidden.code).toBe(1);
    expect(jsonOf(forbidden).error).toMatch(/not allowed to do this/);
    // Scheduling a run needs the right to run the target as well.
    const scheduler = await api(rt.url, 'POST', '/service-accounts', { token: KEY, body: { name: 'scheduler', scopes: [{ scope: 'schedules:write' }], allow_privileged_scopes: true } });
    const noRun = await local(['create', '--cron', '0 9 * * *', '--agent', 'writer', '-m', 'x', '--json'], { SVC_ADMIN_TOKEN: scheduler.body.token });
    expect(noRun.code).toBe(1);
    expect(jsonOf(noRun).error).toMatch(/not allowed to do this .*agents:writer:run|agents:run/);
  });
});
