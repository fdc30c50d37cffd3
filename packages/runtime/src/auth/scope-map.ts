/**
 * @module auth/scope-map
 * The route → required-scope map (reference: server.md §1.8), as data. Route declarations carry
 * the same scopes in their `Access`; a test checks that the two agree for every route, and the
 * MCP tools ask this map about their REST twins, so REST and MCP cannot drift apart.
 *
 * Matching: an exact `METHOD /path` key wins; otherwise the patterns of that method are tried in
 * order, where `{param}` and `*` match any text (including `/`). No match means unmapped, which
 * the route-coverage test forbids for every route that is not public.
 */

type Entry = readonly [key: string, scopes: readonly string[]];

const entityRows = (plural: 'agents' | 'teams' | 'workflows'): Entry[] => [
  [`GET /${plural}`, [`${plural}:read`]],
  [`GET /${plural}/{id}`, [`${plural}:read`]],
  [`POST /${plural}/{id}/runs`, [`${plural}:run`]],
  [`POST /${plural}/{id}/runs/{run_id}/cancel`, [`${plural}:run`]],
  [`POST /${plural}/{id}/runs/{run_id}/continue`, [`${plural}:run`]],
  // Unmapped upstream (only a route gate); mapped here so no run action is ever scope-free.
  [`POST /${plural}/{id}/runs/{run_id}/resume`, [`${plural}:run`]],
  [`POST /${plural}/{id}/sessions/{session_id}/fork`, [`${plural}:run`]],
  [`GET /${plural}/{id}/runs`, [`${plural}:read`]],
  [`GET /${plural}/{id}/runs/{run_id}`, [`${plural}:read`]],
  [`GET /${plural}/{id}/*`, [`${plural}:read`]],
  [`POST /${plural}`, [`${plural}:write`]],
  [`PATCH /${plural}/{id}`, [`${plural}:write`]],
  [`DELETE /${plural}/{id}`, [`${plural}:delete`]],
];

const crudRows = (resource: string, base: string): Entry[] => [
  [`GET ${base}`, [`${resource}:read`]],
  [`GET ${base}/*`, [`${resource}:read`]],
  [`POST ${base}`, [`${resource}:write`]],
  [`PATCH ${base}/*`, [`${resource}:write`]],
  [`POST ${base}/*`, [`${resource}:write`]],
  [`DELETE ${base}`, [`${resource}:delete`]],
  [`DELETE ${base}/*`, [`${resource}:delete`]],
];

export const DEFAULT_SCOPE_MAP: readonly Entry[] = [
  ['GET /config', ['config:read']],
  ['GET /models', ['config:read']],
  ['GET /mcp-servers', ['config:read']],
  ['GET /registry', ['registry:read']],
  ...entityRows('agents'),
  ...entityRows('teams'),
  ...entityRows('workflows'),
  ['GET /sessions', ['sessions:read']],
  ['GET /sessions/*', ['sessions:read']],
  ['POST /sessions', ['sessions:write']],
  ['POST /sessions/{session_id}/rename', ['sessions:write']],
  ['PATCH /sessions/{session_id}', ['sessions:write']],
  ['DELETE /sessions', ['sessions:delete']],
  ['DELETE /sessions/{session_id}', ['sessions:delete']],
  ...crudRows('memories', '/memories'),
  ['GET /memory_topics', ['memories:read']],
  ['GET /user_memory_stats', ['memories:read']],
  ['POST /optimize-memories', ['memories:write']],
  ...crudRows('learnings', '/learnings'),
  ['GET /knowledge/config', ['knowledge:read']],
  ['GET /knowledge/{knowledge_id}/sources', ['knowledge:read']],
  ['GET /knowledge/{knowledge_id}/sources/{source_id}/files', ['knowledge:read']],
  ['POST /knowledge/search', ['knowledge:read']],
  ['POST /knowledge/remote-content', ['knowledge:write']],
  ['GET /knowledge/reindex', ['knowledge:read']],
  ['POST /knowledge/reindex', ['knowledge:write']],
  ['GET /knowledge/evals', ['knowledge:read']],
  ['GET /knowledge/evals/{eval_id}', ['knowledge:read']],
  ['POST /knowledge/evals', ['knowledge:write']],
  ...crudRows('knowledge', '/knowledge'),
  ['GET /metrics', ['metrics:read']],
  // Unmapped upstream; it reveals refresh state, so it needs the same scope as the metrics.
  ['GET /metrics/refresh/status', ['metrics:read']],
  ['POST /metrics/refresh', ['metrics:write']],
  ...crudRows('evals', '/eval-runs'),
  ['GET /traces', ['traces:read']],
  ['GET /traces/*', ['traces:read']],
  ['POST /traces/search', ['traces:read']],
  ['GET /trace_session_stats', ['traces:read']],
  ['POST /service-accounts', ['service_accounts:write']],
  ['GET /service-accounts', ['service_accounts:read']],
  ['DELETE /service-accounts/{service_account_id}', ['service_accounts:delete']],
  // Authentication only: the handlers decide who manages which budgets and reads whose usage
  // (server/routes/budget-access.ts: global admins all, a tenant admin its own tenant's).
  ['GET /budgets', []],
  ['POST /budgets', []],
  ['GET /budgets/{budget_id}', []],
  ['PUT /budgets/{budget_id}', []],
  ['DELETE /budgets/{budget_id}', []],
  ['GET /usage', []],
  // Authentication only: any accepted credential may ask who it is (the control panel's sign-in).
  ['GET /auth/whoami', []],
  // Running a schedule now is writing to it; run history and the webhook attempts of a run are reads.
  ['POST /schedules/{schedule_id}/trigger', ['schedules:write']],
  ['POST /schedules/{schedule_id}/enable', ['schedules:write']],
  ['POST /schedules/{schedule_id}/disable', ['schedules:write']],
  ['GET /schedules/{schedule_id}/runs', ['schedules:read']],
  ...crudRows('schedules', '/schedules'),
  ...crudRows('approvals', '/approvals'),
  ['POST /databases/*', ['config:write']],
  ...crudRows('components', '/components'),
  // Authentication only: each MCP tool is gated by the scopes of its REST twin.
  ['ALL /mcp', []],
];

interface Compiled {
  method: string;
  regex: RegExp;
  scopes: readonly string[];
}

function compile(pattern: string): RegExp {
  const body = pattern
    .replace(/\{[^}]+\}/g, '*')
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

export class ScopeMap {
  private readonly exact = new Map<string, readonly string[]>();
  private readonly patterns: Compiled[] = [];

  constructor(entries: readonly Entry[] = DEFAULT_SCOPE_MAP) {
    for (const [key, scopes] of entries) {
      const space = key.indexOf(' ');
      const method = key.slice(0, space);
      const path = key.slice(space + 1);
      this.exact.set(`${method} ${path}`, scopes);
      this.patterns.push({ method, regex: compile(path), scopes });
    }
  }

  /**
   * The scopes `method path` requires, or undefined when unmapped. `path` may be a concrete
   * path (`/agents/a1/runs`) or a route template (`/agents/{agent_id}/runs`).
   */
  required(method: string, path: string): readonly string[] | undefined {
    const m = method.toUpperCase();
    const exact = this.exact.get(`${m} ${path}`) ?? this.exact.get(`ALL ${path}`);
    if (exact) return exact;
    for (const p of this.patterns) {
      if ((p.method === m || p.method === 'ALL') && p.regex.test(path)) return p.scopes;
    }
    return undefined;
  }
}

export const defaultScopeMap = new ScopeMap();
