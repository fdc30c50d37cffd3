/**
 * @module mcp-client/hosted
 * The runtime's view of its agents' tool sources: found in agents and (recursively) team
 * members, each attached once to the runtime's settings and logger, and closed at shutdown.
 */
import type { HostedComponent } from '../components/component.js';
import { withMembers } from '../components/walk.js';
import { isToolSource, type ToolSource } from '../tools/tool-source.js';
import type { McpClientHost } from './settings.js';

export function toolSourcesOf(components: readonly HostedComponent[], host: McpClientHost): ToolSource[] {
  const found = new Set<ToolSource>();
  for (const component of withMembers(components)) {
    const { toolSources } = component as { toolSources?: unknown };
    if (Array.isArray(toolSources)) for (const s of toolSources) if (isToolSource(s)) found.add(s);
  }
  for (const source of found) (source as { attach?: (h: McpClientHost) => void }).attach?.(host);
  return [...found];
}
