/**
 * The runtime's OpenAPI document, built in this process from the runtime's code (no server, no
 * network): a Runtime with one component of each kind answers `GET /openapi.json` through its
 * fetch handler. `servers` is dropped: it names the origin the document was fetched from, which
 * the panel never uses (it calls its own origin).
 */
import { Agent, Runtime, SqliteDb, Team, Workflow, step } from '@svc/runtime';

export async function runtimeOpenApiDocument(): Promise<Record<string, unknown>> {
  const agent = new Agent({ id: 'agent', instructions: 'A stand-in: only its routes are read.' });
  const runtime = new Runtime(
    {
      id: 'openapi',
      name: 'Runtime',
      agents: [agent],
      teams: [new Team({ id: 'team', members: [agent] })],
      workflows: [new Workflow({ id: 'workflow', steps: [step('only', ({ message }) => message)] })],
      mcp_server: true,
      db: new SqliteDb({ path: ':memory:' }),
      env: {},
    },
  );
  try {
    const response = await runtime.fetch(new Request('http://localhost/openapi.json'));
    if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
    const { servers: _servers, ...document } = (await response.json()) as Record<string, unknown>;
    return document;
  } finally {
    await runtime.close();
  }
}
