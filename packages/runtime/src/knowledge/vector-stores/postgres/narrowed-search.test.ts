import { describe, expect, it } from 'vitest';
import type { Filter } from '../filter-language.js';
import type { PostgresStoreContext } from './context.js';
import { hnswSettings } from './hnsw-settings.js';
import { narrowedPath, rememberBroad } from './narrowed-search.js';

const context = (exactNarrowedRows: number, narrowing = { meta: true, user: true, tenant: false }): PostgresStoreContext =>
  ({ hnsw: hnswSettings({ exactNarrowedRows }), narrowing, broadNarrowings: new Map() }) as unknown as PostgresStoreContext;

const eq = (key: string, value: string | number): Filter => ({ op: 'EQ', key, value });

describe('narrowedPath', () => {
  it('answers exactly what an index reaches: an equality filter, a user scope', () => {
    const ctx = context(5000);
    expect(narrowedPath(ctx, eq('group', 7), undefined)).toBe('exact');
    expect(narrowedPath(ctx, { op: 'IN', key: 'base', values: ['kb1', 'kb2'] }, undefined)).toBe('exact');
    expect(narrowedPath(ctx, { op: 'AND', conditions: [eq('base', 'kb1'), { op: 'GT', key: 'year', value: 2000 }] }, undefined)).toBe('exact');
    expect(narrowedPath(ctx, { op: 'LT', key: 'year', value: 2000 }, { user: 'u1' })).toBe('exact');
  });

  it('walks the graph when no valid index reaches the rows, or when exactNarrowedRows is 0', () => {
    expect(narrowedPath(context(5000), { op: 'NOT', condition: eq('group', 7) }, undefined)).toBe('walk');
    expect(narrowedPath(context(5000), { op: 'OR', conditions: [eq('group', 7), { op: 'CONTAINS', key: 'title', value: 'x' }] }, undefined)).toBe('walk');
    // The tenant's index is not valid yet (being built): the walk.
    expect(narrowedPath(context(5000), undefined, { tenant: 't1' })).toBe('walk');
    expect(narrowedPath(context(5000, { meta: false, user: true, tenant: true }), eq('group', 7), undefined)).toBe('walk');
    expect(narrowedPath(context(0), eq('group', 7), { user: 'u1' })).toBe('walk');
  });

  it('remembers a narrowing found broad, that one only, for a while', () => {
    const ctx = context(5000);
    rememberBroad(ctx, eq('base', 'kb3'), { user: 'u1' });
    expect(narrowedPath(ctx, eq('base', 'kb3'), { user: 'u1' })).toBe('broad');
    expect(narrowedPath(ctx, eq('base', 'kb3'), { user: 'u2' })).toBe('exact');
    expect(narrowedPath(ctx, eq('base', 'kb4'), { user: 'u1' })).toBe('exact');
    // Once the time is up it is probed again.
    ctx.broadNarrowings.set(JSON.stringify([eq('base', 'kb3'), 'u1', null]), Date.now() - 1);
    expect(narrowedPath(ctx, eq('base', 'kb3'), { user: 'u1' })).toBe('exact');
    expect(ctx.broadNarrowings.size).toBe(0);
  });
});
