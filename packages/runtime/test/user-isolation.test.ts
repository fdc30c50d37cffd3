/**
 * User isolation is on by default (issue 25, point 1). Two JWT users (RS256, `sub` alice and
 * bob) on a runtime configured with nothing but its key never see each other's sessions, runs,
 * run events, traces, documents or memories, through REST or the /mcp tools; an admin (the
 * admin scope) sees everyone's; pages stay exact under the scope; a token without `sub` is
 * refused with a clear 403; and `user_isolation: false` is the explicit opt-out. On SQLite and
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import {
  documentAs,
  mcpError,
  memoryAs,
  runAs,
  sorted,
  startIsolated,
  token,
  USER_SCOPES,
  visibleOverMcp,
  visibleTo,
} from './support/isolation.js';
import { signingKey, type SigningKey } from './support/jwt.js';
import type { StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`user isolation by default on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let key: SigningKey;
    let rt: StartedRuntime;
    let alice: string;
    let bob: string;
    let admin: string;
    const mine = { alice: { runs: [] as string[], memories: [] as string[], documents: [] as string[] }, bob: { runs: [] as string[], memories: [] as string[], documents: [] as string[] } };

    beforeAll(async () => {
      fake = await startFakeLlm();
      key = await signingKey('RS256', 'iso');
      // Nothing about isolation is configured: the default is what is tested.
      rt = await startIsolated(kind, fake, key);
      alice = await token(key, { sub: 'alice', scopes: USER_SCOPES });
      bob = await token(key, { sub: 'bob', scopes: USER_SCOPES });
      admin = await token(key, { sub: 'root', scopes: ['agent_os:admin'] });
      for (const [who, bearer] of [['alice', alice], ['bob', bob]] as const) {
        for (let i = 1; i <= 3; i++) mine[who].runs.push(await runAs(rt.url, bearer, `${who}-${i}`));
        mine[who].memories.push(await memoryAs(rt.url, bearer, `${who} likes tea`));
        mine[who].documents.push(await documentAs(rt.url, bearer, `${who}-notes`));
      }
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('two users see only their own sessions, runs, traces, memories and documents on REST', async () => {
      for (const who of ['alice', 'bob'] as const) {
        const seen = await visibleTo(rt.url, who === 'alice' ? alice : bob);
        expect(seen).toEqual({
          sessions: sorted(`${who}-1`, `${who}-2`, `${who}-3`),
          runs: sorted(...mine[who].runs),
          traces: sorted(...mine[who].runs),
          memories: sorted(...mine[who].memories),
          documents: sorted(...mine[who].documents),
        });
      }
    });

    it("another user's session, run, events, trace, memory and document are not found by id", async () => {
      const [run] = mine.alice.runs;
      for (const path of [
        '/sessions/alice-1',
        '/sessions/alice-1/runs',
        `/sessions/alice-1/runs/${run}`,
        `/agents/writer/runs/${run}`,
        `/agents/writer/runs/${run}/events`,
        `/traces/${run}`,
        `/memories/${mine.alice.memories[0]}`,
        `/knowledge/content/${mine.alice.documents[0]}`,
      ]) {
        expect((await call(rt.url, 'GET', path, { token: bob })).status, path).toBe(404);
      }
      // Asking for alice by name changes nothing: the caller's own user is in the same WHERE.
      expect((await call(rt.url, 'GET', '/sessions?user_id=alice', { token: bob })).body.data).toEqual([]);
      expect((await call(rt.url, 'GET', '/traces?user_id=alice', { token: bob })).body.data).toEqual([]);
      // Writes are refused too: bob cannot rename, delete or continue alice's session.
      expect((await call(rt.url, 'POST', '/sessions/alice-1/rename', { token: bob, body: { session_name: 'pwned' } })).status).toBe(404);
      expect((await call(rt.url, 'DELETE', '/sessions/alice-1', { token: bob })).status).toBe(404);
      const intrude = await call(rt.url, 'POST', '/agents/writer/runs', { token: bob, body: { message: 'x', session_id: 'alice-1', stream: false } });
      expect(intrude.status).toBe(403);
      expect((await call(rt.url, 'GET', '/sessions/alice-1', { token: alice })).body.session_name).not.toBe('pwned');
    });

    it('the /mcp tools confine the same way', async () => {
      expect(await visibleOverMcp(rt.url, bob)).toEqual({ sessions: sorted('bob-1', 'bob-2', 'bob-3'), memories: mine.bob.memories });
      expect(await mcpError(rt.url, bob, 'get_session_runs', { session_id: 'alice-1' })).toMatch(/not found/);
      expect(await mcpError(rt.url, bob, 'get_run', { run_id: mine.alice.runs[0] })).toMatch(/another user/);
      expect(await mcpError(rt.url, bob, 'get_sessions', { user_id: 'alice' })).toBeUndefined();
      expect(await mcpError(rt.url, bob, 'delete_memory', { memory_id: mine.alice.memories[0] })).toMatch(/not found/);
    });

    it('an admin is not confined, on REST and MCP', async () => {
      const seen = await visibleTo(rt.url, admin);
      expect(seen.sessions).toEqual(sorted('alice-1', 'alice-2', 'alice-3', 'bob-1', 'bob-2', 'bob-3'));
      expect(seen.runs).toEqual(sorted(...mine.alice.runs, ...mine.bob.runs));
      expect(seen.traces).toEqual(sorted(...mine.alice.runs, ...mine.bob.runs));
      expect(seen.memories).toEqual(sorted(...mine.alice.memories, ...mine.bob.memories));
      expect(seen.documents).toEqual(sorted(...mine.alice.documents, ...mine.bob.documents));
      expect((await visibleOverMcp(rt.url, admin)).sessions).toEqual(seen.sessions);
      expect(await mcpError(rt.url, admin, 'get_run', { run_id: mine.alice.runs[0] })).toBeUndefined();
    });

    it('keeps `limit` exact under the scope: full pages of the caller’s own rows, totals of theirs only', async () => {
      const first = await call(rt.url, 'GET', '/sessions?limit=2&sort_by=session_name&sort_order=asc', { token: bob });
      expect(first.body.data.map((s: Json) => s.session_id)).toEqual(['bob-1', 'bob-2']);
      expect(first.body.meta).toMatchObject({ total_count: 3, total_pages: 2 });
      const second = await call(rt.url, 'GET', '/sessions?limit=2&page=2&sort_by=session_name&sort_order=asc', { token: bob });
      expect(second.body.data.map((s: Json) => s.session_id)).toEqual(['bob-3']);
      const traces = await call(rt.url, 'GET', '/traces?limit=2', { token: bob });
      expect(traces.body.data).toHaveLength(2);
      const rest = await call(rt.url, 'GET', `/traces?limit=2&cursor=${encodeURIComponent(traces.body.meta.next_cursor)}`, { token: bob });
      expect([...traces.body.data, ...rest.body.data].map((t: Json) => t.run_id).sort()).toEqual(sorted(...mine.bob.runs));
      expect(rest.body.meta.next_cursor).toBeNull();
      const memories = await call(rt.url, 'GET', '/memories?limit=1', { token: bob });
      expect(memories.body.meta).toMatchObject({ total_count: 1 });
    });

    it('refuses a token without `sub` with a clear 403 rather than showing everyone’s data', async () => {
      const anonymous = await token(key, { sub: undefined, scopes: USER_SCOPES });
      for (const path of ['/sessions', '/traces', '/memories', '/knowledge/content', '/agents/writer/runs']) {
        const res = await call(rt.url, 'GET', path, { token: anonymous });
        expect(res.status, path).toBe(403);
        expect(res.body.detail, path).toMatch(/no `sub` claim|names no user/);
      }
    });
  });

  describe.skipIf(!kind.available)(`user_isolation: false on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;

    beforeAll(async () => {
      fake = await startFakeLlm();
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('is the explicit opt-out: users with a read scope then see each other’s sessions and runs', async () => {
      const key = await signingKey('RS256', 'optout');
      rt = await startIsolated(kind, fake, key, { user_isolation: false });
      const alice = await token(key, { sub: 'alice', scopes: USER_SCOPES });
      const bob = await token(key, { sub: 'bob', scopes: USER_SCOPES });
      const run = await runAs(rt.url, alice, 'shared-room');
      expect((await call(rt.url, 'GET', '/sessions', { token: bob })).body.data.map((s: Json) => s.session_id)).toEqual(['shared-room']);
      expect((await call(rt.url, 'GET', `/agents/writer/runs/${run}`, { token: bob })).status).toBe(200);
    });

    it('USER_ISOLATION=off in the environment opts out the same way', async () => {
      await rt?.stop();
      const key = await signingKey('RS256', 'optout-env');
      rt = await startIsolated(kind, fake, key, {}, { USER_ISOLATION: 'off' });
      const alice = await token(key, { sub: 'alice', scopes: USER_SCOPES });
      const bob = await token(key, { sub: 'bob', scopes: USER_SCOPES });
      await runAs(rt.url, alice, 'env-room');
      expect((await call(rt.url, 'GET', '/sessions', { token: bob })).body.data.map((s: Json) => s.session_id)).toEqual(['env-room']);
    });
  });
}
