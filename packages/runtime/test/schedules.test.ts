/**
 * Schedules end to end, on SQLite and PostgreSQL: create, read, list, edit, disable and enable,
 * trigger and delete through the routes; bad input refused with a 4xx naming what is wrong; an
 * every-two-seconds schedule fired exactly once per occurrence by three runtimes on one database;
 * the catch-up policy after downtime (the most recent missed occurrence within
 * SCHEDULE_CATCHUP_SECONDS runs, older ones are recorded as skipped); a schedule's webhook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { Scheduler } from '../src/schedules/scheduler.js';
import { silentLogger } from '../src/util/logger.js';
import { verifyWebhook } from '../src/webhooks/signature.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { eventually } from './support/eventually.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

type Json = Record<string, any>;
const SECRET = 'schedule-test-secret-0123456789';
/** The runtime the routes are called on fires nothing by itself: the tests drive firing. */
const QUIET = { SCHEDULES_ENABLED: 'false', WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' };

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`schedules on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let database: TestDatabase;
    let receiver: WebhookReceiver;
    let options: Record<string, unknown>;
    let rt: StartedRuntime;

    beforeAll(async () => {
      fake = await startFakeLlm();
      receiver = await startWebhookReceiver();
      database = await kind.create();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(model);
      options = { agents, teams, workflows };
      rt = await startRuntimeOn(database, { ...options, env: QUIET });
    });
    afterAll(async () => {
      await rt?.stop();
      await database?.cleanup();
      await receiver?.close();
      await fake?.close();
    });

    const create = (body: Json, base = rt.url) => call(base, 'POST', '/schedules', { body });
    const history = async (id: string): Promise<Json[]> => (await call(rt.url, 'GET', `/schedules/${id}/runs`)).body as Json[];

    it('refuses a bad cron expression, an unknown time zone and an unknown target with a 400 naming it', async () => {
      const base = { cron: '0 9 * * *', target: { kind: 'agent', id: 'writer' }, input: { message: 'hi' } };
      const badCron = await create({ ...base, cron: '61 * * * *' });
      expect(badCron.status).toBe(400);
      expect(badCron.body.detail).toBe('Invalid cron expression "61 * * * *": Invalid value for minute: 61. Use five fields (minute hour day-of-month month day-of-week) or six with a leading seconds field');
      const words = await create({ ...base, cron: 'every morning' });
      expect(words.status).toBe(400);
      expect(words.body.detail).toMatch(/^Invalid cron expression "every morning"/);
      const zone = await create({ ...base, timezone: 'Europe/Atlantis' });
      expect(zone.status).toBe(400);
      expect(zone.body.detail).toMatch(/^Unknown time zone "Europe\/Atlantis": give an IANA zone name/);
      const target = await create({ ...base, target: { kind: 'team', id: 'writer' } });
      expect(target.status).toBe(400);
      expect(target.body.detail).toBe("Unknown target: no runnable team with id 'writer' is hosted by this runtime");
      const kindless = await create({ ...base, target: { kind: 'robot', id: 'writer' } });
      expect(kindless.status).toBe(422);
      const empty = await create({ ...base, input: { message: '  ' } });
      expect(empty.status).toBe(422);
      expect(JSON.stringify(empty.body)).toMatch(/message must not be empty/);
      const hook = await create({ ...base, webhook: 'ftp://example.com/x' });
      expect(hook.status).toBe(400);
      expect((await call(rt.url, 'GET', '/schedules')).body).toEqual([]);
    });

    it('creates, reads, lists, edits, disables, enables and deletes a schedule', async () => {
      const created = await create({ name: 'morning', cron: '0 9 * * 1-5', timezone: 'Europe/Paris', target: { kind: 'agent', id: 'writer' }, input: { message: 'report' } });
      expect(created.status).toBe(201);
      const s = created.body as Json;
      expect(s).toMatchObject({ name: 'morning', cron: '0 9 * * 1-5', timezone: 'Europe/Paris', target: { kind: 'agent', id: 'writer' }, input: { message: 'report' }, webhook: null, enabled: true, user_id: null });
      // 9:00 in Paris is 7:00 or 8:00 UTC, on a weekday, in the future.
      const next = new Date(s.next_run_at as string);
      expect(next.getTime()).toBeGreaterThan(Date.now());
      expect([7, 8]).toContain(next.getUTCHours());
      expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
      expect((await call(rt.url, 'GET', `/schedules/${s.schedule_id}`)).body).toEqual(s);
      expect((await call(rt.url, 'GET', '/schedules')).body.map((x: Json) => x.schedule_id)).toContain(s.schedule_id);

      const patched = await call(rt.url, 'PATCH', `/schedules/${s.schedule_id}`, { body: { cron: '30 6 * * *', timezone: 'UTC', input: { message: 'earlier' } } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ cron: '30 6 * * *', timezone: 'UTC', input: { message: 'earlier' }, name: 'morning' });
      expect(new Date(patched.body.next_run_at).getUTCHours()).toBe(6);
      expect((await call(rt.url, 'PATCH', `/schedules/${s.schedule_id}`, { body: { cron: '* * *' } })).status).toBe(400);

      const off = await call(rt.url, 'POST', `/schedules/${s.schedule_id}/disable`);
      expect(off.body).toMatchObject({ enabled: false, next_run_at: null });
      const on = await call(rt.url, 'POST', `/schedules/${s.schedule_id}/enable`);
      expect(on.body.enabled).toBe(true);
      expect(on.body.next_run_at).toBe(patched.body.next_run_at);

      expect((await call(rt.url, 'DELETE', `/schedules/${s.schedule_id}`)).status).toBe(204);
      expect((await call(rt.url, 'GET', `/schedules/${s.schedule_id}`)).status).toBe(404);
      expect((await call(rt.url, 'DELETE', `/schedules/${s.schedule_id}`)).status).toBe(404);
    });

    it('runs a schedule now on trigger, detached from the request, and lists it in the history; its webhook receives the run', async () => {
      const s = (await create({ cron: '0 0 1 1 *', target: { kind: 'team', id: 'router' }, input: { message: 'now please' }, webhook: `${receiver.url}/scheduled`, enabled: false })).body as Json;
      const fired = await call(rt.url, 'POST', `/schedules/${s.schedule_id}/trigger`);
      expect(fired.status).toBe(202);
      expect(fired.body).toMatchObject({ schedule_id: s.schedule_id, state: 'started', error: null });
      const runId = fired.body.run_id as string;
      const entry = await eventually(async () => {
        const [first] = await history(s.schedule_id);
        return first?.run_status === 'COMPLETED' ? first : undefined;
      }, 10_000, 'the triggered run to complete');
      expect(entry).toMatchObject({ trigger: 'manual', state: 'started', run_id: runId, error: null });
      const run = (await call(rt.url, 'GET', `/teams/router/runs/${runId}`)).body as Json;
      expect(run).toMatchObject({ status: 'COMPLETED', input: { message: 'now please' } });
      const hit = await eventually(() => receiver.received.find((r) => r.path === '/scheduled'), 10_000, 'the schedule webhook');
      expect(hit.json.run).toMatchObject({ run_id: runId, team_id: 'router', status: 'COMPLETED' });
      expect(verifyWebhook(SECRET, hit.body, hit.headers['x-svc-signature'] as string)).toBe(true);
    });

    it('three runtimes on one database fire an every-two-seconds schedule exactly once per occurrence', async () => {
      const firing = await Promise.all([0, 1, 2].map(() => startRuntimeOn(database, { ...options, env: { WEBHOOK_SECRET: SECRET } })));
      try {
        const s = (await create({ cron: '*/2 * * * * *', target: { kind: 'agent', id: 'writer' }, input: { message: 'tick' } })).body as Json;
        const begun = Date.now();
        await new Promise((r) => setTimeout(r, 9_000));
        await call(rt.url, 'POST', `/schedules/${s.schedule_id}/disable`);
        const ended = Date.now();
        const occurrences = (await history(s.schedule_id)).filter((o) => o.trigger === 'cron').toReversed();
        const times = occurrences.map((o) => Date.parse(o.occurrence_at));
        // Every even second between the first and the last occurrence, each once.
        expect(new Set(times).size).toBe(times.length);
        expect(times.length).toBeGreaterThanOrEqual(3);
        for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(2000);
        expect(times[0]!).toBeLessThanOrEqual(begun + 2000 + 1000);
        expect(times.at(-1)!).toBeGreaterThanOrEqual(ended - 2000 - 1500);
        expect(occurrences.every((o) => o.state === 'started' && o.run_id)).toBe(true);
        // One run per occurrence, and no other run of this schedule.
        const runIds = new Set(occurrences.map((o) => o.run_id));
        expect(runIds.size).toBe(occurrences.length);
        const [count] = await rt.runtime.db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM svc_runs WHERE input LIKE '%"tick"%'`);
        expect(Number(count?.n)).toBe(occurrences.length);
        const lateness = occurrences.map((o) => Date.parse(o.recorded_at) - Date.parse(o.occurrence_at));
        expect(Math.max(...lateness)).toBeLessThan(1500);
        process.stdout.write(`${kind.kind}: ${occurrences.length} occurrences over ${((ended - begun) / 1000).toFixed(1)} s, lateness ms max ${Math.max(...lateness)} median ${lateness.sort((a, b) => a - b)[Math.floor(lateness.length / 2)]}\n`);
        await eventually(async () => ((await history(s.schedule_id)).every((o) => o.run_status === 'COMPLETED') ? true : undefined), 10_000, 'every run to complete');
      } finally {
        for (const r of firing) await r.stop();
      }
    }, 40_000);

    it('after downtime runs only the most recent missed occurrence within the catch-up window, recording the older ones as skipped', async () => {
      const scheduler = new Scheduler({ service: rt.runtime.schedules, log: silentLogger, catchupMs: 120_000 });
      const now = Date.now();
      const minute = 60_000;
      // Every minute; the runtimes were down for the last ten minutes.
      const every = (await create({ cron: '0 * * * * *', target: { kind: 'agent', id: 'writer' }, input: { message: 'catch up' } })).body as Json;
      const lastMissed = Math.floor(now / minute) * minute;
      await rt.runtime.db.execute('UPDATE svc_schedules SET next_fire_ms = $1 WHERE schedule_id = $2', [lastMissed - 9 * minute, every.schedule_id]);
      // Daily, thirty minutes ago: every missed occurrence is older than the window.
      const daily = new Date(now - 30 * minute);
      const old = (await create({ cron: `${daily.getUTCMinutes()} ${daily.getUTCHours()} * * *`, target: { kind: 'agent', id: 'writer' }, input: { message: 'too late' } })).body as Json;
      const lastDaily = Math.floor((now - 30 * minute) / minute) * minute;
      await rt.runtime.db.execute('UPDATE svc_schedules SET next_fire_ms = $1 WHERE schedule_id = $2', [lastDaily - 3 * 86_400_000, old.schedule_id]);

      await scheduler.runTick(now);
      await scheduler.runTick(now); // a second pass (another runtime) finds nothing more to do

      const caught = await history(every.schedule_id);
      expect(caught.map((o) => [Date.parse(o.occurrence_at), o.state])).toEqual(Array.from({ length: 10 }, (_, i) => [lastMissed - i * minute, i === 0 ? 'started' : 'skipped']));
      expect(caught.slice(1).every((o) => o.run_id === null && o.error === 'missed while no runtime was up')).toBe(true);
      expect((await call(rt.url, 'GET', `/schedules/${every.schedule_id}`)).body.next_run_at).toBe(new Date(lastMissed + minute).toISOString());

      const missed = await history(old.schedule_id);
      expect(missed.map((o) => [Date.parse(o.occurrence_at), o.state])).toEqual(Array.from({ length: 4 }, (_, i) => [lastDaily - i * 86_400_000, 'skipped']));
      expect(Date.parse((await call(rt.url, 'GET', `/schedules/${old.schedule_id}`)).body.next_run_at)).toBe(lastDaily + 86_400_000);
      await eventually(async () => ((await history(every.schedule_id))[0]?.run_status === 'COMPLETED' ? true : undefined), 10_000, 'the catch-up run');
    });

    it('records an occurrence whose runtime died before starting its run as failed, without firing it again', async () => {
      const s = (await create({ cron: '0 0 1 1 *', target: { kind: 'agent', id: 'writer' }, input: { message: 'orphan' } })).body as Json;
      const taken = Date.now() - 5 * 60_000;
      // What a runtime leaves when it dies between taking an occurrence and starting its run.
      await rt.runtime.db.execute(
        "INSERT INTO svc_schedule_occurrences (schedule_id, trigger, occurrence_ms, state, fired_by, recorded_ms) VALUES ($1, 'cron', $2, 'starting', 'gone', $2)",
        [s.schedule_id, taken],
      );
      await new Scheduler({ service: rt.runtime.schedules, log: silentLogger, catchupMs: 0 }).runTick();
      expect(await history(s.schedule_id)).toEqual([
        expect.objectContaining({ occurrence_at: new Date(taken).toISOString(), state: 'failed', run_id: null, error: 'the runtime firing it stopped before its run started' }),
      ]);
    });
  });
}
