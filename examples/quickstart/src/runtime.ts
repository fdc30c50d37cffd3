/**
 * The quickstart runtime: what a newcomer sees after `npm install && npm start`.
 */
import { Runtime, type RuntimeOptions } from '@svc/runtime';

export function createQuickstartRuntime(overrides: Partial<RuntimeOptions> = {}): Runtime {
  return new Runtime({
    id: 'quickstart',
    name: 'Quickstart',
    description: 'Demo agents, a team, a workflow and a knowledge base, served by the runtime',
    agents: [
      { id: 'assistant', name: 'Assistant', description: 'A general assistant that can tell the time' },
      { id: 'docs-expert', name: 'Docs expert', description: 'Answers questions from the runtime documentation' },
    ],
    teams: [{ id: 'support', name: 'Support team', description: 'Routes a question to the right agent' }],
    workflows: [{ id: 'research', name: 'Research', description: 'Looks a topic up, then writes a summary' }],
    knowledge: [{ id: 'runtime-docs', name: 'Runtime docs', description: 'The runtime README, chunked and indexed' }],
    mcp_server: true,
    ...overrides,
  });
}
