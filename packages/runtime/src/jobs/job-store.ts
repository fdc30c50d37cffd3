/**
 * @module jobs/job-store
 * Durable jobs in the runtime's database (`svc_jobs`), written once for SQLite and PostgreSQL.
 * A job is claimed with a lease; on PostgreSQL the claim skips rows another runtime is claiming
 * (`FOR UPDATE SKIP LOCKED`), on SQLite the single writer makes the claim statement atomic.
 * A finished job's row is deleted; a failed one is kept (without its data) with its error.
 *
 * A job's input bytes travel in its row (`data`), except on a SQLite file, where inputs of
 * `fileDataMinBytes` (1 MiB) or more are kept in a file beside the database (`<file>.jobs/`,
 * see job-data-files.ts) and the row names it (`data_file`): better-sqlite3 writes are
 * synchronous, so a 10 MB row held the event loop. PostgreSQL always keeps them in the row, so
 * a runtime on another host can take the job.
 */
import { randomUUID } from 'node:crypto';
import type { Db, SqlClient, SqlValue } from '../storage/db.js';
import { SqliteDb } from '../storage/sqlite/sqlite-db.js';
import { JobDataFiles } from './job-data-files.js';

export type JobStatus = 'queued' | 'running' | 'failed';

export interface NewJob {
  kind: string;
  /** What the job works on (a content id), so it can be found and cancelled by it. */
  ref?: string | undefined;
  payload: Record<string, unknown>;
  /**
   * Input bytes (an upload), kept with the job until it finishes: bytes, or what `withData`
   * prepared (needed for inputs that may go to a file).
   */
  data?: Uint8Array | StagedData | undefined;
  /** Attempts before the job fails for good; default 5. */
  maxAttempts?: number | undefined;
}

export interface Job {
  id: string;
  kind: string;
  ref: string | null;
  payload: Record<string, unknown>;
  data: Uint8Array | null;
  status: JobStatus;
  /** Claims so far, this one included. */
  attempts: number;
  /**
   * Attempts that ended without a result: the process running the job stopped (its lease ran
   * out while the job was running), counted when the job is claimed again.
   */
  crashes: number;
  maxAttempts: number;
  lastError: string | null;
  createdMs: number;
}

/** Job input made ready by `JobStore.withData`: bytes for the row, or the file holding them. */
export interface StagedData {
  readonly staged: true;
  readonly bytes?: Uint8Array;
  readonly file?: string;
}

export interface JobStoreOptions {
  /**
   * Where large inputs are kept, one file each. Default: `<file>.jobs` beside a SQLite database
   * file; none (inputs in the row) for PostgreSQL and in-memory SQLite. null: none.
   */
  dataDir?: string | null | undefined;
  /** Inputs at least this large go to a file when there is a data directory; default 1 MiB. */
  fileDataMinBytes?: number | undefined;
}

export const FILE_DATA_MIN_BYTES = 1 << 20;

/** The directory for a database's job input files: beside a SQLite file, none otherwise. */
export function defaultJobDataDir(db: Db): string | undefined {
  return db instanceof SqliteDb && db.path !== ':memory:' ? `${db.path}.jobs` : undefined;
}

interface Row {
  id: string;
  kind: string;
  ref: string | null;
  payload: string;
  /** The size of the input held in the row (`data`); it is read apart, see `readData`. */
  data_bytes: number | string | null;
  data_file: string | null;
  status: string;
  attempts: number | string;
  crashes: number | string;
  max_attempts: number | string;
  last_error: string | null;
  created_ms: number | string;
}

const COLUMNS = 'id, kind, ref, payload, length(data) AS data_bytes, data_file, status, attempts, crashes, max_attempts, last_error, created_ms';

/**
 * A job's input in the row is read this many bytes at a time. PostgreSQL sends a bytea as hex
 * text, and pg decodes a whole row at once: a 14 MB input was a 28 MB string turned back into
 * bytes in one 340 ms stretch of the event loop. A slice costs ~3 ms, and the loop runs between.
 */
const DATA_SLICE_BYTES = 1024 * 1024;

function toJob(row: Row, data: Uint8Array | null): Job {
  return {
    id: row.id,
    kind: row.kind,
    ref: row.ref,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    data,
    status: row.status as JobStatus,
    attempts: Number(row.attempts),
    crashes: Number(row.crashes),
    maxAttempts: Number(row.max_attempts),
    lastError: row.last_error,
    createdMs: Number(row.created_ms),
  };
}

export class JobStore {
  /** Where large inputs go; undefined: always in the row. */
  readonly files: JobDataFiles | undefined;
  private readonly fileDataMinBytes: number;
  /** Checks for files whose rows were deleted, running after the deleting transaction ends. */
  private readonly drops = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    options: JobStoreOptions = {},
  ) {
    const dir = options.dataDir === undefined ? defaultJobDataDir(db) : (options.dataDir ?? undefined);
    this.files = dir !== undefined ? new JobDataFiles(dir) : undefined;
    this.fileDataMinBytes = options.fileDataMinBytes ?? FILE_DATA_MIN_BYTES;
  }

  /**
   * Prepares `data` (bytes, or a string stored as UTF-8) for a job that `fn` enqueues, and runs
   * `fn` with it. A large input on a store with a data directory is written to a durable file
   * first (before `fn` opens its transaction, so the transaction only writes the file's name);
   * once `fn` has settled, the file is removed unless a job row names it: `fn` failed, its
   * transaction rolled back, or it enqueued nothing. The caller passes what `fn` receives as the
   * job's `data`.
   */
  async withData<T>(data: Uint8Array | string, fn: (data: StagedData) => Promise<T>): Promise<T> {
    // A string's length in UTF-16 code units is a lower bound of its UTF-8 size.
    const size = typeof data === 'string' ? data.length : data.byteLength;
    if (!this.files || size < this.fileDataMinBytes) {
      return fn({ staged: true, bytes: typeof data === 'string' ? Buffer.from(data, 'utf8') : data });
    }
    const files = this.files;
    const file = await files.write(data);
    try {
      return await fn({ staged: true, file });
    } finally {
      const kept = await this.referenced([file]).then(
        (names) => names.has(file),
        // Unknown: leave it; the sweep at the next start removes it if no job names it.
        () => true,
      );
      files.landed(file);
      if (!kept) await files.remove(file).catch(() => undefined);
    }
  }

  /** Records a job ready to run; pass the transaction that records what the job is for. */
  async enqueue(job: NewJob, sql: SqlClient = this.db): Promise<string> {
    const id = randomUUID();
    const now = Date.now();
    const data = job.data === undefined ? undefined : 'staged' in job.data ? job.data : { bytes: job.data, file: undefined };
    await sql.execute(
      `INSERT INTO svc_jobs (id, kind, ref, payload, data, data_file, status, attempts, max_attempts, run_after_ms, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, $5, $6, 'queued', 0, $7, $8, $8, $8)`,
      [id, job.kind, job.ref ?? null, JSON.stringify(job.payload), data?.bytes ?? null, data?.file ?? null, job.maxAttempts ?? 5, now],
    );
    return id;
  }

  /** The job, with its input read back from its file when it has one (null when that is gone). */
  /** The `size` bytes of job `id`'s input in its row, in DATA_SLICE_BYTES slices. */
  private async readData(id: string, size: number): Promise<Uint8Array> {
    const data = new Uint8Array(size);
    for (let offset = 0; offset < size; offset += DATA_SLICE_BYTES) {
      const [row] = await this.db.query<{ part: Uint8Array | null }>('SELECT substr(data, $2, $3) AS part FROM svc_jobs WHERE id = $1', [id, offset + 1, DATA_SLICE_BYTES]);
      if (!row?.part || row.part.byteLength !== Math.min(DATA_SLICE_BYTES, size - offset)) throw new Error(`job ${id}: its input changed while it was read`);
      data.set(row.part, offset);
    }
    return data;
  }

  private async load(row: Row): Promise<Job> {
    if (row.data_file === null) return toJob(row, row.data_bytes === null ? null : await this.readData(row.id, Number(row.data_bytes)));
    return toJob(row, this.files ? await this.files.read(row.data_file) : null);
  }

  /** Which of `names` a job row names. */
  private async referenced(names: readonly string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const rows = await this.db.query<{ data_file: string }>(`SELECT data_file FROM svc_jobs WHERE data_file IN (${names.map((_, i) => `$${i + 1}`).join(', ')})`, names);
    return new Set(rows.map((r) => r.data_file));
  }

  /**
   * Removes the files of these names that no job row names. Called from inside a transaction it
   * must not decide before that transaction ends: on SQLite a statement outside the transaction
   * waits until it has (committed or rolled back), which is what this relies on. Not awaited by
   * the caller; `settled()` waits for it.
   */
  private dropLater(names: readonly string[]): void {
    const files = this.files;
    if (!files || names.length === 0) return;
    const drop = this.referenced(names)
      .then(async (kept) => {
        for (const name of names) if (!kept.has(name)) await files.remove(name);
      })
      // Left for the sweep at the next start.
      .catch(() => undefined)
      .finally(() => this.drops.delete(drop));
    this.drops.add(drop);
  }

  /** Waits for the file removals started so far (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.drops.size > 0) await Promise.all(this.drops);
  }

  /**
   * Removes input files no job names (a crash between writing one and committing its job, or
   * before removing a finished job's). Run at start, before this process writes any.
   */
  async sweepDataFiles(): Promise<number> {
    if (!this.files) return 0;
    return this.files.sweep(async () => new Set((await this.db.query<{ data_file: string }>('SELECT data_file FROM svc_jobs WHERE data_file IS NOT NULL')).map((r) => r.data_file)));
  }

  /**
   * Takes the oldest ready job of these kinds: queued and due, or running under a lease that ran
   * out (its worker died). Increments its attempts (and, taken over from a dead worker, its
   * crashes) and leases it to `owner`.
   */
  async claim(owner: string, kinds: readonly string[], leaseMs: number, nowMs = Date.now()): Promise<Job | undefined> {
    if (kinds.length === 0) return undefined;
    const params: SqlValue[] = [nowMs];
    const kindList = kinds.map((k) => {
      params.push(k);
      return `$${params.length}`;
    });
    const ready = `kind IN (${kindList.join(', ')}) AND ((status = 'queued' AND run_after_ms <= $1) OR (status = 'running' AND lease_expires_ms < $1))`;
    // A read first: an idle poll then takes no write lock (SQLite) and no row locks (PostgreSQL).
    const [any] = await this.db.query<{ id: string }>(`SELECT id FROM svc_jobs WHERE ${ready} LIMIT 1`, params);
    if (!any) return undefined;
    const skipLocked = this.db.kind === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    params.push(owner, nowMs + leaseMs);
    const rows = await this.db.query<Row>(
      `UPDATE svc_jobs SET status = 'running', attempts = attempts + 1, crashes = crashes + CASE WHEN status = 'running' THEN 1 ELSE 0 END,
         lease_owner = $${params.length - 1},
         lease_expires_ms = $${params.length}, updated_ms = $1
       WHERE id IN (SELECT id FROM svc_jobs WHERE ${ready} ORDER BY run_after_ms, created_ms LIMIT 1 ${skipLocked})
       RETURNING ${COLUMNS}`,
      params,
    );
    return rows[0] ? this.load(rows[0]) : undefined;
  }

  /** Extends the leases of the given jobs that `owner` still holds. */
  async renew(owner: string, ids: readonly string[], leaseMs: number): Promise<void> {
    for (const id of ids) {
      await this.db.execute("UPDATE svc_jobs SET lease_expires_ms = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'running'", [
        Date.now() + leaseMs,
        id,
        owner,
      ]);
    }
  }

  /** Removes a finished job (and its input file); false when the lease was lost (another worker took it over). */
  async complete(id: string, owner: string): Promise<boolean> {
    const rows = await this.db.query<{ data_file: string | null }>("DELETE FROM svc_jobs WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING data_file", [id, owner]);
    await this.removeFiles(rows);
    return rows.length === 1;
  }

  private async removeFiles(rows: readonly { data_file: string | null }[]): Promise<void> {
    for (const { data_file } of rows) if (data_file !== null) await this.files?.remove(data_file);
  }

  /** Puts a job back in the queue to run again at `runAfterMs`, recording why it failed. */
  async retry(id: string, owner: string, error: string, runAfterMs: number): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_jobs SET status = 'queued', lease_owner = NULL, lease_expires_ms = NULL, last_error = $1, run_after_ms = $2, updated_ms = $3
       WHERE id = $4 AND lease_owner = $5 AND status = 'running'`,
      [error, runAfterMs, Date.now(), id, owner],
    );
    return changed === 1;
  }

  /** Gives up on a job: kept as failed with its error, its data (and input file) dropped. */
  async fail(id: string, owner: string, error: string): Promise<boolean> {
    const where = "id = $1 AND lease_owner = $2 AND status = 'running'";
    // The lease holder alone changes the row, so the name read first is the one dropped below.
    const files = await this.db.query<{ data_file: string | null }>(`SELECT data_file FROM svc_jobs WHERE ${where}`, [id, owner]);
    const changed = await this.db.execute(
      `UPDATE svc_jobs SET status = 'failed', lease_owner = NULL, lease_expires_ms = NULL, last_error = $3, data = NULL, data_file = NULL, updated_ms = $4
       WHERE ${where}`,
      [id, owner, error, Date.now()],
    );
    if (changed === 1) await this.removeFiles(files);
    return changed === 1;
  }

  /**
   * Hands a job back unfinished (shutdown, or a job that must wait): it runs again (not before
   * `runAfterMs` when given), and this attempt does not count.
   */
  async release(id: string, owner: string, runAfterMs?: number): Promise<boolean> {
    const changed = await this.db.execute(
      `UPDATE svc_jobs SET status = 'queued', lease_owner = NULL, lease_expires_ms = NULL, attempts = attempts - 1, updated_ms = $1,
         run_after_ms = COALESCE($4, run_after_ms)
       WHERE id = $2 AND lease_owner = $3 AND status = 'running'`,
      [Date.now(), id, owner, runAfterMs ?? null],
    );
    return changed === 1;
  }

  async get(id: string): Promise<Job | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_jobs WHERE id = $1`, [id]);
    return row ? this.load(row) : undefined;
  }

  /** Jobs working on `ref` (queued, running or failed). */
  async byRef(ref: string): Promise<Job[]> {
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_jobs WHERE ref = $1 ORDER BY created_ms`, [ref]);
    return Promise.all(rows.map((row) => this.load(row)));
  }

  /**
   * Deletes every job of `ref` (what it worked on is gone); a running one finds out when it
   * ends. Their input files are removed once the transaction `sql` belongs to has committed.
   */
  async deleteByRef(ref: string, sql: SqlClient = this.db): Promise<number> {
    const rows = await sql.query<{ data_file: string | null }>('DELETE FROM svc_jobs WHERE ref = $1 RETURNING data_file', [ref]);
    this.dropLater(rows.flatMap((r) => (r.data_file !== null ? [r.data_file] : [])));
    return rows.length;
  }
}
