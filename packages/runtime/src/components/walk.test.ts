import { describe, expect, it } from 'vitest';
import type { HostedComponent } from './component.js';
import { withMembers } from './walk.js';

const c = (id: string, members?: unknown[]) => ({ id, ...(members ? { members } : {}) }) as unknown as HostedComponent;

describe('withMembers', () => {
  it('lists each component once, every team followed by its members at any depth', () => {
    const shared = c('shared');
    const inner = c('inner', [shared, c('deep')]);
    const outer = c('outer', [inner, shared]);
    const ids = withMembers([c('solo'), outer, shared]).map((x) => x.id);
    expect(ids).toEqual(['solo', 'outer', 'inner', 'shared', 'deep']);
  });
});
