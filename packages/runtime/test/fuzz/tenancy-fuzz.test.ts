/**
 * The fuzz suite again, as callers confined by user isolation and by tenant (issue 25): every
 * route and method of /openapi.json gets generated bad input from a tenant admin (every route,
 * held to its tenant) and from an ordinary user of a tenant (held to its user and tenant), on a
 * runtime with `tenant_claim` and rows of two tenants, on SQLite and PostgreSQL. The scoped
 * statements (the owner and tenant conditions beside every filter) must answer bad input as the
 * unscoped ones do: never a 5xx, always the JSON envelope. FUZZ_RUNS and FUZZ_SEED as there.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKinds } from '../support/databases.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { memoryAs, runAs, startIsolated, token, USER_SCOPES } from '../support/isolation.js';
import { signingKey } from '../support/jwt.js';
import type { StartedRuntime } from '../support/runtime.js';
import { badRequestsFor, operations } from './bad-requests.js';
import { sendAll, summary } from './send.js';

type Json = Record<string, any>;

const RUNS = Number(process.env.FUZZ_RUNS ?? 15);
const SEED = Number(process.env.FUZZ_SEED ?? 20261128);

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`fuzzing every route as confined callers on ${kind.kind}`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;
    let doc: Json;
    const callers: Record<string, string> = {};

    beforeAll(async () => {
      fake = await startFakeLlm();
      const key = await signingKey('RS256', 'fuzz-tenancy');
      rt = await startIsolated(kind, fake, key, { tenant_claim: 'org_id' }, { AUTH_FAILURE_LIMIT: '1000000' });
      callers.tenantAdmin = await token(key, { sub: 'ops', org_id: 'acme', scopes: ['tenant:admin'] });
      callers.user = await token(key, { sub: 'alice', org_id: 'acme', scopes: USER_SCOPES });
      const other = await token(key, { sub: 'alice', org_id: 'globex', scopes: USER_SCOPES });
      for (const [bearer, session] of [[callers.user, 'acme-session'], [other, 'globex-session']] as const) {
        await runAs(rt.url, bearer, session);
        await memoryAs(rt.url, bearer, 'remembered');
      }
      doc = (await (await fetch(`${rt.url}/openapi.json`)).json()) as Json;
    });
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    for (const who of ['tenantAdmin', 'user']) {
      it(`${RUNS} generated bad requests per operation as the ${who}: no 5xx, the JSON envelope on every error`, async () => {
        const auth = `Bearer ${callers[who]}`;
        const requests = operations(doc).flatMap((op, i) => fc.sample(badRequestsFor(doc, op, auth), { seed: SEED + i, numRuns: RUNS }));
        expect(requests.length).toBeGreaterThan(40 * RUNS);
        expect(summary(await sendAll(rt.url, requests))).toEqual([]);
      }, 300_000);
    }

    it('is still healthy afterwards, and the tenants still apart', async () => {
      expect((await fetch(`${rt.url}/health`)).status).toBe(200);
      const seen = await fetch(`${rt.url}/sessions?limit=100`, { headers: { authorization: `Bearer ${callers.tenantAdmin}` } });
      const ids = ((await seen.json()) as Json).data.map((s: Json) => s.session_id);
      expect(ids).toContain('acme-session');
      expect(ids).not.toContain('globex-session');
    });
  });
}
