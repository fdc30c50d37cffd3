/**
 * Tenants above users (issue 25, point 2): with `authorization_config.tenant_claim: 'org_id'`,
 * two tenants (acme and globex, each with a user whose `sub` is alice) never see each other's
 * sessions, runs, traces, documents or memories through REST or the /mcp tools; a token without
 * the claim is refused; a tenant admin (`tenant:admin`) sees its own tenant only; a global admin
 * sees all, rows from before tenancy included (which no tenant sees); service accounts belong to
 * the tenant that minted them. On SQLite and PostgreSQL, RS256 JWTs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { documentAs, mcpError, memoryAs, runAs, sorted, startIsolated, token, USER_SCOPES, visibleOverMcp, visibleTo } from './support/isolation.js';
import { signingKey, type SigningKey } from './support/jwt.js';
import type { StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

const sessionsOf = (who: 'acme' | 'globex' | 'bob'): string[] => [`${who}-1`, `${who}-2`, `${who}-3`];

interface Seen {
  runs: string[];
  memories: string[];
  documents: string[];
}

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`tenancy on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let key: SigningKey;
    let rt: StartedRuntime;
    const bearer: Record<string, string> = {};
    const made: Record<'acme' | 'globex' | 'bob', Seen> = {
      acme: { runs: [], memories: [], documents: [] },
      globex: { runs: [], memories: [], documents: [] },
      bob: { runs: [], memories: [], documents: [] },
    };

    beforeAll(async () => {
      fake = await startFakeLlm();
      key = await signingKey('RS256', 'tenancy');
      rt = await startIsolated(kind, fake, key, { tenant_claim: 'org_id' });
      // A session from before tenancy was switched on: no tenant.
      await rt.runtime.db.execute(
        `INSERT INTO svc_sessions (session_id, session_type, component_id, user_id, session_name, created_at, updated_at) VALUES ('legacy', 'agent', 'writer', 'alice', 'old', 1, 1)`,
      );
      bearer.acme = await token(key, { sub: 'alice', org_id: 'acme', scopes: USER_SCOPES });
      bearer.globex = await token(key, { sub: 'alice', org_id: 'globex', scopes: USER_SCOPES });
      bearer.bob = await token(key, { sub: 'bob', org_id: 'acme', scopes: USER_SCOPES });
      bearer.acmeAdmin = await token(key, { sub: 'ops', org_id: 'acme', scopes: ['tenant:admin'] });
      bearer.globexAdmin = await token(key, { sub: 'ops', org_id: 'globex', scopes: ['tenant:admin'] });
      bearer.root = await token(key, { sub: 'root', scopes: ['agent_os:admin'] });
      for (const who of ['acme', 'globex', 'bob'] as const) {
        for (let i = 1; i <= 3; i++) made[who].runs.push(await runAs(rt.url, bearer[who]!, `${who}-${i}`));
        made[who].memories.push(await memoryAs(rt.url, bearer[who]!, `${who} remembers`));
        made[who].documents.push(await documentAs(rt.url, bearer[who]!, `${who}-doc`));
      }
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    it('the same `sub` in two tenants is two callers: each sees only its own tenant’s rows, on REST', async () => {
      for (const who of ['acme', 'globex'] as const) {
        expect(await visibleTo(rt.url, bearer[who]!)).toEqual({
          sessions: sorted(...sessionsOf(who)),
          runs: sorted(...made[who].runs),
          traces: sorted(...made[who].runs),
          memories: sorted(...made[who].memories),
          documents: sorted(...made[who].documents),
        });
      }
    });

    it("another tenant's rows are not found by id, and its session cannot be continued", async () => {
      const run = made.acme.runs[0]!;
      for (const path of [
        '/sessions/acme-1',
        `/sessions/acme-1/runs/${run}`,
        `/agents/writer/runs/${run}`,
        `/agents/writer/runs/${run}/events`,
        `/traces/${run}`,
        `/memories/${made.acme.memories[0]}`,
        `/knowledge/content/${made.acme.documents[0]}`,
      ]) {
        expect((await call(rt.url, 'GET', path, { token: bearer.globex })).status, path).toBe(404);
      }
      const intrude = await call(rt.url, 'POST', '/agents/writer/runs', { token: bearer.globex, body: { message: 'x', session_id: 'acme-1', stream: false } });
      expect(intrude.status).toBe(403);
      expect((await call(rt.url, 'POST', `/agents/writer/runs/${run}/cancel`, { token: bearer.globex })).status).toBe(404);
      expect((await call(rt.url, 'DELETE', `/memories/${made.acme.memories[0]}`, { token: bearer.globex })).status).toBe(404);
      expect((await call(rt.url, 'DELETE', `/knowledge/content/${made.acme.documents[0]}`, { token: bearer.globex })).status).toBe(404);
      // Still there for its owner.
      expect((await call(rt.url, 'GET', `/memories/${made.acme.memories[0]}`, { token: bearer.acme })).status).toBe(200);
      expect((await call(rt.url, 'GET', `/knowledge/content/${made.acme.documents[0]}`, { token: bearer.acme })).status).toBe(200);
    });

    it('the /mcp tools hold each tenant to its own rows', async () => {
      expect(await visibleOverMcp(rt.url, bearer.globex!)).toEqual({ sessions: sorted(...sessionsOf('globex')), memories: made.globex.memories });
      expect(await mcpError(rt.url, bearer.globex!, 'get_session_runs', { session_id: 'acme-1' })).toMatch(/not found/);
      expect(await mcpError(rt.url, bearer.globex!, 'get_run', { run_id: made.acme.runs[0] })).toMatch(/not found/);
      expect(await mcpError(rt.url, bearer.globex!, 'update_memory', { memory_id: made.acme.memories[0], memory: 'pwned' })).toMatch(/not found/);
      expect(await mcpError(rt.url, bearer.globex!, 'run_agent', { agent_id: 'writer', message: 'x', session_id: 'acme-1' })).toMatch(/another user/);
    });

    it('a tenant admin sees every user of its own tenant and nothing of another tenant', async () => {
      const acme = await visibleTo(rt.url, bearer.acmeAdmin!);
      expect(acme.sessions).toEqual(sorted(...sessionsOf('acme'), ...sessionsOf('bob')));
      expect(acme.runs).toEqual(sorted(...made.acme.runs, ...made.bob.runs));
      expect(acme.traces).toEqual(sorted(...made.acme.runs, ...made.bob.runs));
      expect(acme.memories).toEqual(sorted(...made.acme.memories, ...made.bob.memories));
      expect(acme.documents).toEqual(sorted(...made.acme.documents, ...made.bob.documents));
      expect((await visibleOverMcp(rt.url, bearer.acmeAdmin!)).sessions).toEqual(acme.sessions);
      const globex = await visibleTo(rt.url, bearer.globexAdmin!);
      expect(globex.sessions).toEqual(sorted(...sessionsOf('globex')));
      expect((await call(rt.url, 'GET', '/sessions/acme-1', { token: bearer.globexAdmin })).status).toBe(404);
    });

    it('a global admin sees every tenant, and the rows from before tenancy, which no tenant sees', async () => {
      const all = await visibleTo(rt.url, bearer.root!);
      expect(all.sessions).toEqual(sorted(...sessionsOf('acme'), ...sessionsOf('bob'), ...sessionsOf('globex'), 'legacy'));
      expect(all.runs).toEqual(sorted(...made.acme.runs, ...made.bob.runs, ...made.globex.runs));
      expect(all.memories).toEqual(sorted(...made.acme.memories, ...made.bob.memories, ...made.globex.memories));
      expect(all.documents).toEqual(sorted(...made.acme.documents, ...made.bob.documents, ...made.globex.documents));
      expect((await visibleOverMcp(rt.url, bearer.root!)).sessions).toEqual(all.sessions);
      // alice of acme is the legacy session's user, yet it has no tenant: hidden from her and her admin.
      expect((await call(rt.url, 'GET', '/sessions/legacy', { token: bearer.acme })).status).toBe(404);
      expect((await call(rt.url, 'GET', '/sessions/legacy', { token: bearer.acmeAdmin })).status).toBe(404);
      expect((await call(rt.url, 'GET', '/sessions/legacy', { token: bearer.root })).status).toBe(200);
    });

    it('keeps `limit` exact under the tenant: full pages of the tenant’s rows only', async () => {
      const first = await call(rt.url, 'GET', '/sessions?limit=4&sort_by=session_name&sort_order=asc', { token: bearer.acmeAdmin });
      expect(first.body.data.map((s: Json) => s.session_id)).toEqual(['acme-1', 'acme-2', 'acme-3', 'bob-1']);
      expect(first.body.meta).toMatchObject({ total_count: 6, total_pages: 2 });
      const second = await call(rt.url, 'GET', '/sessions?limit=4&page=2&sort_by=session_name&sort_order=asc', { token: bearer.acmeAdmin });
      expect(second.body.data.map((s: Json) => s.session_id)).toEqual(['bob-2', 'bob-3']);
      const traces = await call(rt.url, 'GET', '/traces?limit=5', { token: bearer.acmeAdmin });
      expect(traces.body.data).toHaveLength(5);
      const rest = await call(rt.url, 'GET', `/traces?limit=5&cursor=${encodeURIComponent(traces.body.meta.next_cursor)}`, { token: bearer.acmeAdmin });
      expect([...traces.body.data, ...rest.body.data].map((t: Json) => t.run_id).sort()).toEqual(sorted(...made.acme.runs, ...made.bob.runs));
      expect(rest.body.meta.next_cursor).toBeNull();
      const docs = await call(rt.url, 'GET', '/knowledge/content?limit=1', { token: bearer.acmeAdmin });
      expect(docs.body.data).toHaveLength(1);
      expect(docs.body.meta).toMatchObject({ total_count: 2 });
    });

    it('refuses a token without the tenant claim (403, naming it), unless it is a global admin', async () => {
      const orphan = await token(key, { sub: 'dave', scopes: USER_SCOPES });
      for (const path of ['/sessions', '/traces', '/memories', '/knowledge/content']) {
        const res = await call(rt.url, 'GET', path, { token: orphan });
        expect(res.status, path).toBe(403);
        expect(res.body.detail, path).toMatch(/`org_id` claim/);
      }
      const mcp = await call(rt.url, 'POST', '/mcp', { token: orphan, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
      expect(mcp.status).toBe(403);
      const blank = await token(key, { sub: 'dave', org_id: '', scopes: USER_SCOPES });
      expect((await call(rt.url, 'GET', '/sessions', { token: blank })).status).toBe(403);
      expect((await call(rt.url, 'GET', '/sessions', { token: bearer.root })).status).toBe(200);
    });

    it('service accounts belong to the tenant that minted them, and a tenant admin cannot mint a global admin', async () => {
      const minted = await call(rt.url, 'POST', '/service-accounts', {
        token: bearer.acmeAdmin,
        body: { name: 'acme-bot', scopes: ['agents:run', 'sessions:read', 'memories:read'].map((scope) => ({ scope })) },
      });
      expect(minted.status, JSON.stringify(minted.body)).toBe(201);
      expect(minted.body.tenant_id).toBe('acme');
      const bot = minted.body.token as string;
      await runAs(rt.url, bot, 'bot-1');
      // The bot is confined to its own sessions (sa:acme-bot), in acme; acme's admin sees them, globex's does not.
      expect((await call(rt.url, 'GET', '/sessions', { token: bot })).body.data.map((s: Json) => s.session_id)).toEqual(['bot-1']);
      expect((await call(rt.url, 'GET', '/sessions/bot-1', { token: bearer.acmeAdmin })).status).toBe(200);
      expect((await call(rt.url, 'GET', '/sessions/bot-1', { token: bearer.globexAdmin })).status).toBe(404);
      // Listed and revoked within its tenant only.
      const globexList = await call(rt.url, 'GET', '/service-accounts', { token: bearer.globexAdmin });
      expect(globexList.body.data.map((a: Json) => a.name)).not.toContain('acme-bot');
      expect((await call(rt.url, 'GET', '/service-accounts', { token: bearer.acmeAdmin })).body.data.map((a: Json) => a.name)).toContain('acme-bot');
      expect((await call(rt.url, 'DELETE', `/service-accounts/${minted.body.id}`, { token: bearer.globexAdmin })).status).toBe(404);
      // Minting into another tenant, or a global admin token, is refused.
      const elsewhere = await call(rt.url, 'POST', '/service-accounts', { token: bearer.acmeAdmin, body: { name: 'sneaky', tenant_id: 'globex' } });
      expect(elsewhere.status).toBe(403);
      const escalate = await call(rt.url, 'POST', '/service-accounts', {
        token: bearer.acmeAdmin,
        body: { name: 'root-bot', scopes: [{ scope: 'agent_os:admin' }], allow_privileged_scopes: true },
      });
      expect(escalate.status).toBe(403);
      // A global admin names the tenant of the account it mints.
      const forGlobex = await call(rt.url, 'POST', '/service-accounts', { token: bearer.root, body: { name: 'globex-bot', tenant_id: 'globex' } });
      expect(forGlobex.body.tenant_id).toBe('globex');
      expect((await call(rt.url, 'GET', '/sessions', { token: forGlobex.body.token })).status).toBe(200);
    });

    it('schedules are the tenant’s: listed and read within it only', async () => {
      const created = await call(rt.url, 'POST', '/schedules', {
        token: bearer.acme,
        body: { cron: '0 3 * * *', target: { kind: 'agent', id: 'writer' }, input: { message: 'nightly' } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.schedule_id as string;
      expect((await call(rt.url, 'GET', '/schedules', { token: bearer.globex })).body).toEqual([]);
      expect((await call(rt.url, 'GET', `/schedules/${id}`, { token: bearer.globex })).status).toBe(404);
      expect((await call(rt.url, 'GET', `/schedules/${id}`, { token: bearer.acmeAdmin })).status).toBe(200);
      expect((await call(rt.url, 'GET', '/schedules', { token: bearer.root })).body.map((s: Json) => s.schedule_id)).toContain(id);
    });
  });
}
