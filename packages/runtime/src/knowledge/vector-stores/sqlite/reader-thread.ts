/**
 * @module knowledge/vector-stores/sqlite/reader-thread
 * A thread with its own read-only connection to a store's file, for large stores' keyword queries.
 *
 * Why: FTS5 scores every chunk that matches any query word, so on 100k chunks a word found in a
 * fifth of them costs ~15 ms of C code. On the main thread that is 15 ms of event loop per
 * keyword search, and a hybrid search pays it after its vector side (p99 24 ms at 100k). Here
 * it runs beside the vector side and off the loop. A thread of its own rather than the
 * knowledge pool: a search must not wait behind a PDF being parsed or k-means being trained.
 *
 * The connection reads committed data only, as a search should (staged versions are hidden by
 * the query itself). Any failure of the thread answers `undefined`, and the store runs the
 * query on its own connection instead.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** One SQL statement and its parameters. */
export interface ReaderQuery {
  sql: string;
  params: unknown[];
}

interface Request {
  id: number;
  first: ReaderQuery;
  /** Run when `first` returns fewer than `enough` rows. */
  fallback: ReaderQuery | undefined;
  enough: number;
}

type Reply = { id: number; rows: unknown[] } | { id: number; error: string };

/** The thread's code: plain CommonJS, so it runs the same under tsx and from dist. */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('mmap_size = ' + workerData.mmapBytes);
const statements = new Map();
function prepared(sql) {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
    if (statements.size > 32) statements.delete(statements.keys().next().value);
  }
  return statement;
}
parentPort.on('message', (request) => {
  try {
    let rows = prepared(request.first.sql).all(...request.first.params);
    if (rows.length < request.enough && request.fallback) rows = prepared(request.fallback.sql).all(...request.fallback.params);
    parentPort.postMessage({ id: request.id, rows });
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: String((error && error.message) || error) });
  }
});
`;

export class SqliteReader {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly waiting = new Map<number, (rows: unknown[] | undefined) => void>();
  /** Queries this thread answered (tests check the path is used). */
  answered = 0;

  constructor(
    private readonly path: string,
    private readonly mmapBytes: number,
  ) {}

  /** Rows of `first` (or of `fallback` when `first` has fewer than `enough`), or undefined when the thread cannot answer. */
  query<T>(first: ReaderQuery, fallback: ReaderQuery | undefined, enough: number): Promise<T[] | undefined> {
    const worker = this.start();
    if (!worker) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise<T[] | undefined>((resolve) => {
      this.waiting.set(id, resolve as (rows: unknown[] | undefined) => void);
      if (this.waiting.size === 1) worker.ref();
      worker.postMessage({ id, first, fallback, enough } satisfies Request, []);
    });
  }

  async close(): Promise<void> {
    this.broken = true;
    const worker = this.worker;
    this.worker = undefined;
    this.fail();
    await worker?.terminate();
  }

  private start(): Worker | undefined {
    if (this.broken) return undefined;
    if (this.worker) return this.worker;
    try {
      const driver = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(SOURCE, { eval: true, workerData: { path: this.path, driver, mmapBytes: this.mmapBytes } });
      worker.on('message', (reply: Reply) => {
        const resolve = this.waiting.get(reply.id);
        if (!resolve) return;
        this.waiting.delete(reply.id);
        if (this.waiting.size === 0) worker.unref();
        if ('error' in reply) resolve(undefined);
        else {
          this.answered++;
          resolve(reply.rows);
        }
      });
      // A thread that cannot open the file or dies: every query goes back to the store's connection.
      worker.on('error', () => this.retire(worker));
      worker.on('exit', () => this.retire(worker));
      worker.unref();
      this.worker = worker;
      return worker;
    } catch {
      this.broken = true;
      return undefined;
    }
  }

  private retire(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.broken = true;
    this.fail();
  }

  private fail(): void {
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }
}
