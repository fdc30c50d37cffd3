/**
 * Following a run's events from another runtime on the same database: the stored events, then
 * new ones as they come, ending with the run; resuming from an event id; and a finished run
 * replayed whole. Closing a follower does not cancel the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds, type TestDatabase } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startRuntimeOn, type StartedRuntime } from './support/runtime.js';
import { parseSse } from './support/sse.js';

type Json = Record<string, any>;

interface Followed {
  ids: number[];
  events: { event: string; data: Json }[];
}

async function follow(url: string, headers: Record<string, string> = {}): Promise<Followed> {
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const text = await res.text();
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  return { ids, events: parseSse(text).map((e) => ({ event: e.event, data: e.data as Json })) };
}

const deltas = (f: Followed) =>
  f.events
    .filter((e) => e.event === 'RunContent')
    .map((e) => e.data.content as string)
    .join('');

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`following run events across runtimes on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let database: TestDatabase;
    let a: StartedRuntime;
    let b: StartedRuntime;

    beforeAll(async () => {
      fake = await startFakeLlm();
      database = await kind.create();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents } = testComponents(model);
      a = await startRuntimeOn(database, { agents });
      b = await startRuntimeOn(database, { agents });
    });
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await database?.cleanup();
      await fake?.close();
    });

    it('a client on another runtime sees the run live, in order, to its end', async () => {
      fake.setBehaviour({ chunkDelayMs: 40 });
      const message = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
      const started = await fetch(`${a.url}/agents/writer/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      });
      const reader = started.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const runId = parseSse(first)[0]!.data.run_id as string;
      const streamedHere = (async () => {
        let rest = first;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return rest;
          rest += new TextDecoder().decode(value);
        }
      })();

      const followed = await follow(`${b.url}/agents/writer/runs/${runId}/events`);
      fake.setBehaviour({ chunkDelayMs: 0 });
      expect(followed.events[0]).toMatchObject({ event: 'RunStarted', data: { run_id: runId } });
      expect(followed.events.at(-1)).toMatchObject({ event: 'RunCompleted', data: { content: `You said: ${message}` } });
      expect(deltas(followed)).toBe(`You said: ${message}`);
      // Live: several batches arrived while the run streamed, numbered without gaps.
      expect(followed.ids).toEqual(followed.ids.map((_, i) => i + 1));
      expect(followed.events.filter((e) => e.event === 'RunContent').length).toBeGreaterThan(1);
      const direct = parseSse(await streamedHere);
      expect(direct.at(-1)!.event).toBe('RunCompleted');
    });

    it('replays a finished run whole, resumes after Last-Event-ID, and 404s an unknown run', async () => {
      const done = (await (
        await fetch(`${a.url}/agents/writer/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x y z', stream: false }) })
      ).json()) as Json;
      const whole = await follow(`${b.url}/agents/writer/runs/${done.run_id}/events`);
      expect(whole.events.map((e) => e.event)).toEqual(['RunStarted', 'RunContent', 'RunCompleted']);
      expect(deltas(whole)).toBe('You said: x y z');
      const resumed = await follow(`${b.url}/agents/writer/runs/${done.run_id}/events`, { 'last-event-id': String(whole.ids[0]) });
      expect(resumed.events.map((e) => e.event)).toEqual(['RunContent', 'RunCompleted']);
      const viaQuery = await follow(`${b.url}/agents/writer/runs/${done.run_id}/events?after=${whole.ids[1]}`);
      expect(viaQuery.events.map((e) => e.event)).toEqual(['RunCompleted']);
      expect((await fetch(`${b.url}/agents/writer/runs/no-such-run/events`)).status).toBe(404);
      expect((await fetch(`${b.url}/agents/weather/runs/${done.run_id}/events`)).status).toBe(404);
    });

    it('closing a follower leaves the run running', async () => {
      fake.setBehaviour({ chunkDelayMs: 30 });
      const message = Array.from({ length: 20 }, (_, i) => `v${i}`).join(' ');
      const started = await fetch(`${a.url}/agents/writer/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
      const reader = started.body!.getReader();
      const runId = parseSse(new TextDecoder().decode((await reader.read()).value))[0]!.data.run_id as string;
      const controller = new AbortController();
      const res = await fetch(`${b.url}/agents/writer/runs/${runId}/events`, { signal: controller.signal });
      await res.body!.getReader().read();
      controller.abort();
      while (!(await reader.read()).done) {
        // drain the run's own stream to its end
      }
      fake.setBehaviour({ chunkDelayMs: 0 });
      const run = (await (await fetch(`${a.url}/agents/writer/runs/${runId}`)).json()) as Json;
      expect(run).toMatchObject({ status: 'COMPLETED', content: `You said: ${message}` });
    });
  });
}
