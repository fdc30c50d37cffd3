/**
 * @module mcp-client/hosted
 * The runtime's view of its agents' tool sources: found in agents and (recursively) team
 * members, each attached once to the runtime's settings and logger, and closed at shutdown.
 */
import type { HostedComponent } from '../components/component.js';
import { isToolSource, type ToolSource } from '../tools/tool-source.js';
import type { McpClientHost } from './settings.js';

export function toolSourcesOf(components: readonly HostedComponent[], host: McpClientHost): ToolSource[] {
  const found = new Set<ToolSource>();
  const seen = new Set<unknown>();
  const visit = (component: unknown) => {
    if (typeof component !== 'object' || component === null || seen.has(component)) return;
    seen.add(component);
    const { toolSources, members } = component as { toolSources?: unknown; members?: unknown };
    if (Array.isArray(toolSources)) for (const s of toolSources) if (isToolSource(s)) found.add(s);
    if (Array.isArray(members)) members.forEach(visit);
  };
  components.forEach(visit);
  for (const source of found) (source as { attach?: (h: McpClientHost) => void }).attach?.(host);
  return [...found];
}
