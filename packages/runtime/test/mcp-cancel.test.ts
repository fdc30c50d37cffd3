/**
 * Cancelling runs the ways MCP clients do it: `notifications/cancelled` (an SDK abort, a request
 * timeout, Esc in Claude Code), hanging up the HTTP request, ending the session; also through a
 * second runtime sharing the database. Every way ends the run CANCELLED with its partial output.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testComponents } from './support/components.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { eventually } from './support/eventually.js';
import { callTool, initialize, notify } from './support/mcp-raw.js';
import { startRuntime, startRuntimeOn, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const LONG_MESSAGE = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

const runOf = async (runtime: StartedRuntime, runId: string): Promise<Json> =>
  (await (await fetch(`${runtime.url}/agents/writer/runs/${runId}`)).json()) as Json;

/** Waits until the run has streamed a few words, so there is partial output to keep. */
const afterSomeOutput = () => new Promise((r) => setTimeout(r, 600));

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`cancelling MCP runs on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let peer: StartedRuntime;
    let mcp: string;

    const activeRun = () => eventually(() => rt.runtime.runner.activeRunIds()[0], 5000, 'a run to start');
    beforeAll(async () => {
      fake = await startFakeLlm();
      const model = new OpenAIChatModel({ model: 'fake-model', baseURL: `${fake.url}/v1`, maxRetries: 0 });
      const { agents, teams, workflows } = testComponents(model);
      const options = { agents, teams, workflows, mcp_server: true } as const;
      rt = await startRuntime(kind, options);
      peer = await startRuntimeOn(rt.database, options);
      mcp = `${rt.url}/mcp`;
    });
    afterAll(async () => {
      await peer?.stop();
      await rt?.stop();
      await fake?.close();
    });
    afterEach(() => fake.setBehaviour({ chunkDelayMs: 0 }));

    it('an SDK abort sends notifications/cancelled, which cancels the run and keeps its partial output', async () => {
      fake.setBehaviour({ chunkDelayMs: 50 });
      const client = new Client({ name: 'abort-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp)));
      const controller = new AbortController();
      const pending = client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: LONG_MESSAGE } }, undefined, {
        signal: controller.signal,
      });
      const runId = await activeRun();
      await afterSomeOutput();
      controller.abort('user pressed Esc');
      await expect(pending).rejects.toThrow(/Esc/);
      const run = await eventually(async () => {
        const r = await runOf(rt, runId);
        return r.status === 'RUNNING' ? undefined : r;
      });
      expect(run.status).toBe('CANCELLED');
      expect(run.content).toMatch(/^You said: word0 word1/);
      expect(run.content.length).toBeLessThan(`You said: ${LONG_MESSAGE}`.length);
      await client.close();
    });

    it('a client-side request timeout cancels the run too, instead of letting it run to completion', async () => {
      fake.setBehaviour({ chunkDelayMs: 100 });
      const client = new Client({ name: 'timeout-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcp)));
      const started = Date.now();
      await expect(
        client.callTool({ name: 'run_agent', arguments: { agent_id: 'writer', message: LONG_MESSAGE } }, undefined, { timeout: 1000 }),
      ).rejects.toThrow(/timed out/i);
      const runs = (await (await fetch(`${rt.url}/agents/writer/runs`)).json()) as Json[];
      const run = await eventually(async () => {
        const latest = (await runOf(rt, runs.at(-1)!.run_id)) as Json;
        return latest.status === 'RUNNING' ? undefined : latest;
      });
      expect(run.status).toBe('CANCELLED');
      // 60 words at 100 ms each would take 6 s; the run stopped soon after the timeout.
      expect(Date.now() - started).toBeLessThan(4000);
      await client.close();
    });

    it('hanging up the HTTP request cancels the run it was waiting for', async () => {
      fake.setBehaviour({ chunkDelayMs: 50 });
      const session = await initialize(mcp);
      const pending = callTool(mcp, session, 5, 'run_agent', { agent_id: 'writer', message: LONG_MESSAGE });
      const runId = await activeRun();
      await afterSomeOutput();
      pending.drop();
      await expect(pending.result).rejects.toThrow(/abort/i);
      const run = await eventually(async () => {
        const r = await runOf(rt, runId);
        return r.status === 'RUNNING' ? undefined : r;
      });
      expect(run.status).toBe('CANCELLED');
      expect(run.content).toMatch(/^You said: word0/);
    });

    it('a cancel names a request of its own session only: another client with the same request id cancels nothing', async () => {
      fake.setBehaviour({ chunkDelayMs: 20 });
      const mine = await initialize(mcp);
      const stranger = await initialize(mcp);
      expect(mine).not.toBe(stranger);
      const pending = callTool(mcp, mine, 1, 'run_agent', { agent_id: 'writer', message: 'a b c d e f g h i j k l m n o p q r s t' });
      await activeRun();
      expect(await notify(mcp, stranger, 'notifications/cancelled', { requestId: 1, reason: 'not yours' })).toBe(202);
      const answer = await pending.result;
      expect(answer.result.structuredContent).toMatchObject({ status: 'COMPLETED' });
      expect(pending.progress[0]).toBe('Writer started');
    });

    it('ending the MCP session (DELETE) cancels what it still waits for', async () => {
      fake.setBehaviour({ chunkDelayMs: 50 });
      const session = await initialize(mcp);
      const pending = callTool(mcp, session, 9, 'run_agent', { agent_id: 'writer', message: LONG_MESSAGE });
      await activeRun();
      const deleted = await fetch(mcp, { method: 'DELETE', headers: { 'mcp-session-id': session! } });
      expect(deleted.status).toBe(200);
      const answer = await pending.result;
      expect(answer.result).toMatchObject({ isError: true, structuredContent: { status: 'CANCELLED' } });
    });

    it('notifications/cancelled sent to another runtime on the same database cancels the run', async () => {
      fake.setBehaviour({ chunkDelayMs: 50 });
      const session = await initialize(mcp);
      const pending = callTool(mcp, session, 'req-42', 'run_agent', { agent_id: 'writer', message: LONG_MESSAGE });
      const runId = await activeRun();
      await afterSomeOutput();
      // The load balancer sent the notification elsewhere: the peer finds the run in the database.
      expect(await notify(`${peer.url}/mcp`, session, 'notifications/cancelled', { requestId: 'req-42' })).toBe(202);
      const answer = await pending.result;
      expect(answer.result).toMatchObject({ isError: true, structuredContent: { run_id: runId, status: 'CANCELLED' } });
      expect(answer.result.structuredContent.content).toMatch(/^You said: word0/);
    });

    it('cancel_run through another runtime stops the run where it executes, and a second cancel says it is finished', async () => {
      fake.setBehaviour({ chunkDelayMs: 50 });
      const session = await initialize(mcp);
      const pending = callTool(mcp, session, 3, 'run_agent', { agent_id: 'writer', message: LONG_MESSAGE });
      const runId = await activeRun();
      const peerSession = await initialize(`${peer.url}/mcp`);
      const cancel = await callTool(`${peer.url}/mcp`, peerSession, 1, 'cancel_run', { run_id: runId, agent_id: 'writer' }).result;
      expect(cancel.result.structuredContent).toMatchObject({ run_id: runId, cancelled: true, status: 'CANCELLED', already_finished: false });
      expect((await pending.result).result.structuredContent).toMatchObject({ status: 'CANCELLED' });
      const again = await fetch(`${peer.url}/agents/writer/runs/${runId}/cancel`, { method: 'POST' });
      expect(await again.json()).toEqual({ run_id: runId, cancelled: false, status: 'CANCELLED', already_finished: true });
    });
  });
}
