import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PostgresDb, SqliteDb } from '@svc/runtime';
import { createLibrary, libraryStorePath } from './library.js';

describe('libraryStorePath', () => {
  const cwd = '/srv/app';

  it('puts knowledge.db beside the runtime’s SQLite file, from DATABASE_URL or the default', () => {
    expect(libraryStorePath(undefined, {}, cwd)).toBe(join(cwd, 'data', 'knowledge.db'));
    expect(libraryStorePath(undefined, { DATABASE_URL: 'sqlite:state/main.db' }, cwd)).toBe(join(cwd, 'state', 'knowledge.db'));
    expect(libraryStorePath(undefined, { DATABASE_URL: '/var/lib/svc/runtime.db' }, cwd)).toBe('/var/lib/svc/knowledge.db');
  });

  it('follows a database given in code, stays in memory with it, and uses ./data beside PostgreSQL', async () => {
    const memory = new SqliteDb({ path: ':memory:' });
    // Never connected: the pool opens on first query.
    const postgres = new PostgresDb({ url: 'postgres://u@db.internal/svc' });
    expect(libraryStorePath(memory, { DATABASE_URL: '/ignored/runtime.db' }, cwd)).toBe(':memory:');
    expect(libraryStorePath(undefined, { DATABASE_URL: ':memory:' }, cwd)).toBe(':memory:');
    expect(libraryStorePath(undefined, { DATABASE_URL: 'postgres://u@db.internal/svc' }, cwd)).toBe(join(cwd, 'data', 'knowledge.db'));
    expect(libraryStorePath(postgres, {}, cwd)).toBe(join(cwd, 'data', 'knowledge.db'));
    await memory.close();
    await postgres.close();
  });
});

describe('createLibrary', () => {
  it('gets its remote content sources from KNOWLEDGE_CONTENT_SOURCES, and a bad entry fails the start', async () => {
    const db = new SqliteDb({ path: ':memory:' });
    const entry = { id: 'handbook', type: 'github', repo: 'garden/handbook', token_env: 'HANDBOOK_TOKEN' };
    const library = createLibrary({ db, env: { KNOWLEDGE_CONTENT_SOURCES: JSON.stringify([entry]), HANDBOOK_TOKEN: 'ghp_example' } });
    expect(library.contentSources.map((s) => [s.id, s.type])).toEqual([['handbook', 'github']]);
    expect(createLibrary({ db, env: {} }).contentSources).toEqual([]);
    expect(() => createLibrary({ db, env: { KNOWLEDGE_CONTENT_SOURCES: JSON.stringify([{ ...entry, token: 'ghp_inline' }]) } })).toThrow(
      'KNOWLEDGE_CONTENT_SOURCES[0] "handbook": token must not be given inline',
    );
    await db.close();
  });
});
