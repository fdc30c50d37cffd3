/**
 * A write that replaces other contents (a new version of a document) on both stores: searches
 * during it see the old contents or the new one, whole, never both and never neither; a write
 * that fails leaves the old contents as they were; and a writer killed with SIGKILL mid-write
 * leaves the old contents searchable and nothing of the new one.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresVectorStore } from '../src/knowledge/vector-stores/postgres/store.js';
import { SqliteVectorStore } from '../src/knowledge/vector-stores/sqlite/store.js';
import type { StoredChunk, VectorStore } from '../src/knowledge/vector-stores/vector-store.js';
import { openDb } from '../src/storage/open-db.js';
import { postgresTestDatabase } from './support/databases.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-replacing-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.toReversed()) await c();
  rmSync(dir, { recursive: true, force: true });
});

const N = 2000;

function chunks(word: string, count: number): StoredChunk[] {
  return Array.from({ length: count }, (_, i) => ({
    id: String(i + 1),
    content: `${word} chunk ${i}`,
    meta_data: { chunk: i + 1 },
    filters: {},
    embedding: Array.from({ length: 16 }, (_unused, d) => Math.sin(i + d + word.length)),
  }));
}

/** Chunks per content one keyword search finds (one query, so one snapshot of the store). */
async function seen(store: VectorStore, query = 'oldword newword'): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const hit of await store.search({ searchType: 'keyword', query, limit: 4 * N })) counts[hit.chunk.content_id] = (counts[hit.chunk.content_id] ?? 0) + 1;
  return counts;
}

interface Kind {
  kind: string;
  available: boolean;
  /** A store on a fresh database, and the path or URL a child process opens it with. */
  open(): Promise<{ store: VectorStore; where: string }>;
  /** A new store on that database: what it finds, and how many rows of content "new" are left. */
  reopen(where: string): Promise<{ seen: Record<string, number>; newRows: number }>;
}

const kinds: Kind[] = [
  {
    kind: 'sqlite',
    available: true,
    async open() {
      const where = join(dir, `${Math.random().toString(36).slice(2)}.db`);
      const store = new SqliteVectorStore({ path: where });
      await store.create();
      cleanups.push(() => store.close());
      return { store, where };
    },
    async reopen(where) {
      // Opening the file removes the hidden rows of a writer that is gone.
      const store = new SqliteVectorStore({ path: where });
      cleanups.push(() => store.close());
      await store.create();
      const raw = new Database(where, { readonly: true });
      try {
        return { seen: await seen(store), newRows: (raw.prepare("SELECT count(*) AS n FROM svc_knowledge_chunks WHERE content_id = 'new'").get() as { n: number }).n };
      } finally {
        raw.close();
      }
    },
  },
  {
    kind: 'postgres',
    available: postgresTestDatabase.available,
    async open() {
      const database = await postgresTestDatabase.create();
      const db = database.open();
      cleanups.push(async () => {
        await db.close();
        await database.cleanup();
      });
      const store = new PostgresVectorStore({ db });
      await store.create();
      return { store, where: database.url };
    },
    async reopen(where) {
      // The server rolled the killed writer's transaction back.
      const db = openDb(where);
      try {
        const store = new PostgresVectorStore({ db });
        await store.create();
        const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM svc_knowledge_chunks WHERE content_id = 'new'");
        return { seen: await seen(store), newRows: row!.n };
      } finally {
        await db.close();
      }
    },
  },
];

for (const kind of kinds) {
  describe.runIf(kind.available)(`replacing writes: ${kind.kind}`, () => {
    it('a search during a replacing write sees the old contents or the new one, whole', async () => {
      const { store } = await kind.open();
      await store.upsert('old-a', chunks('oldword', N / 2), 'test:sine');
      await store.upsert('old-b', chunks('oldword', N / 2), 'test:sine');
      await store.upsert('other', chunks('otherword', 3), 'test:sine');
      const write = store.upsert('new', chunks('newword', N), 'test:sine', {}, { replaces: ['old-a', 'old-b'] });
      const state = { done: false };
      void write.finally(() => (state.done = true));
      const snapshots: Record<string, number>[] = [];
      while (!state.done) {
        await new Promise((resolve) => setImmediate(resolve));
        snapshots.push(await seen(store));
      }
      await write;
      snapshots.push(await seen(store));
      for (const s of snapshots) expect([{ 'old-a': N / 2, 'old-b': N / 2 }, { new: N }]).toContainEqual(s);
      // Searches did run while the write was under way.
      expect(snapshots.some((s) => 'old-a' in s)).toBe(true);
      expect(snapshots.at(-1)).toEqual({ new: N });
      expect(await seen(store, 'otherword')).toEqual({ other: 3 });
      expect([await store.contentExists('old-a'), await store.contentExists('old-b'), await store.contentExists('new')]).toEqual([false, false, true]);
    }, 120_000);

    it('a replacing write that fails leaves the old contents whole and nothing of the new one', async () => {
      const { store } = await kind.open();
      await store.upsert('old', chunks('oldword', N), 'test:sine');
      const broken = chunks('newword', N);
      // A repeated chunk id violates the key once most of the rows are written.
      broken[N - 10] = { ...broken[N - 10]!, id: broken[0]!.id };
      await expect(store.upsert('new', broken, 'test:sine', {}, { replaces: ['old'] })).rejects.toThrow('Storage operation failed');
      expect(await seen(store)).toEqual({ old: N });
    }, 120_000);

    it('a writer killed mid-replacement leaves the old content searchable and nothing of the new one', async () => {
      const { store, where } = await kind.open();
      await store.upsert('old', chunks('oldword', N), 'test:sine');
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'staged-writer.ts'), where, 'new', '300000', 'old'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      for (let i = 0; !out.includes('WRITING'); i++) {
        if (i > 600) throw new Error('the writer never got going');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Well into the write: 300k rows take many seconds on either store.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      child.kill('SIGKILL');
      await exited;
      expect(out).not.toContain('DONE');
      expect(await seen(store)).toEqual({ old: N });
      // What is left of the killed write once a store opens the database again.
      expect(await kind.reopen(where)).toEqual({ seen: { old: N }, newRows: 0 });
    }, 180_000);
  });
}
