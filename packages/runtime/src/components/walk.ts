/**
 * @module components/walk
 * Every hosted component once, each team followed by its members (and theirs, at any depth): the
 * one walk the runtime uses to hand services to agents, find their tool sources and list them.
 */
import type { HostedComponent } from './component.js';

export function withMembers(components: readonly HostedComponent[]): HostedComponent[] {
  const found: HostedComponent[] = [];
  const seen = new Set<unknown>();
  const visit = (component: unknown) => {
    if (typeof component !== 'object' || component === null || seen.has(component)) return;
    seen.add(component);
    found.push(component as HostedComponent);
    const members = (component as { members?: unknown }).members;
    if (Array.isArray(members)) members.forEach(visit);
  };
  components.forEach(visit);
  return found;
}
