/**
 * @module storage/migrations
 * The schema, as ordered steps. Each capability appends its own steps here; never edit a step
 * that has shipped, add a new one. A step's DDL is written once, in PostgreSQL (storage/ddl.ts
 * translates it for SQLite); only a step the dialects truly differ on gives a text per dialect.
 * schema-snapshot.test.ts pins the schema the shipped steps build on both stores.
 */
import type { Migration } from './db.js';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runtime_metadata',
    // A small key/value table for facts about this database, such as which runtime created it.
    sql: `CREATE TABLE IF NOT EXISTS svc_metadata (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
  },
  {
    version: 2,
    name: 'sessions_and_runs',
    // JSON values are TEXT in both dialects, so the store's code and tests are written once.
    // started_ms orders runs that start within the same second (created_at is epoch seconds).
    sql: `CREATE TABLE IF NOT EXISTS svc_sessions (
      session_id TEXT PRIMARY KEY,
      session_type TEXT NOT NULL,
      component_id TEXT NOT NULL,
      user_id TEXT,
      session_name TEXT,
      session_state TEXT,
      metadata TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_sessions_component ON svc_sessions (session_type, component_id, created_at)
    --;;
    CREATE INDEX IF NOT EXISTS svc_sessions_user ON svc_sessions (user_id, created_at)
    --;;
    CREATE TABLE IF NOT EXISTS svc_runs (
      run_id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES svc_sessions (session_id) ON DELETE CASCADE,
      session_type TEXT NOT NULL,
      component_id TEXT NOT NULL,
      user_id TEXT,
      status TEXT NOT NULL,
      input TEXT NOT NULL,
      content TEXT,
      messages TEXT NOT NULL,
      tools TEXT NOT NULL,
      metrics TEXT NOT NULL,
      error TEXT,
      started_ms BIGINT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_runs_session ON svc_runs (session_id, started_ms)`,
  },
  {
    // Versions 3-9 are left to other capabilities in flight; auth owns 10 and up.
    version: 10,
    name: 'service_accounts',
    // Only the SHA-256 of a token is stored. A name is unique among active accounts only (a
    // partial index), so it can be reused after revocation.
    sql: `CREATE TABLE IF NOT EXISTS svc_service_accounts (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      user_id TEXT,
      token_hash TEXT NOT NULL UNIQUE,
      token_prefix TEXT NOT NULL,
      scopes TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      expires_at BIGINT,
      last_used_at BIGINT,
      revoked_at BIGINT,
      created_by TEXT
    )
    --;;
    CREATE UNIQUE INDEX IF NOT EXISTS svc_service_accounts_active_name ON svc_service_accounts (name) WHERE revoked_at IS NULL
    --;;
    CREATE INDEX IF NOT EXISTS svc_service_accounts_created ON svc_service_accounts (created_at)`,
  },
  {
    version: 11,
    name: 'run_leases',
    // A running run is owned by one runtime process (run_owner), which renews its lease while
    // it works. A run whose lease ran out belongs to a dead process and is finalised by any
    // survivor. run_node is the owner's host and port: a process that binds that port again
    // knows the earlier owner is gone without waiting for the lease. cancel_requested_ms asks
    // the owner (wherever it runs) to stop the run; mcp_request is a digest of the MCP client
    // session and JSON-RPC request id that started it, so notifications/cancelled can find it.
    sql: `ALTER TABLE svc_runs ADD COLUMN IF NOT EXISTS run_owner TEXT
    --;;
    ALTER TABLE svc_runs ADD COLUMN IF NOT EXISTS run_node TEXT
    --;;
    ALTER TABLE svc_runs ADD COLUMN IF NOT EXISTS lease_expires_ms BIGINT
    --;;
    ALTER TABLE svc_runs ADD COLUMN IF NOT EXISTS cancel_requested_ms BIGINT
    --;;
    ALTER TABLE svc_runs ADD COLUMN IF NOT EXISTS mcp_request TEXT
    --;;
    CREATE INDEX IF NOT EXISTS svc_runs_running ON svc_runs (lease_expires_ms) WHERE status = 'RUNNING'
    --;;
    CREATE INDEX IF NOT EXISTS svc_runs_mcp_request ON svc_runs (mcp_request) WHERE mcp_request IS NOT NULL`,
  },
  {
    version: 12,
    name: 'jobs',
    // Durable background work (content ingestion first). Any runtime on the database claims a
    // ready job with a lease and renews it while it works; a job whose lease ran out (its
    // process died) is claimed again. data holds the job's input bytes (an upload), so a job
    // survives the process that accepted it. ref names what the job works on (a content id).
    sql: `CREATE TABLE IF NOT EXISTS svc_jobs (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      ref TEXT,
      payload TEXT NOT NULL,
      data BYTEA,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      max_attempts INTEGER NOT NULL,
      run_after_ms BIGINT NOT NULL,
      lease_owner TEXT,
      lease_expires_ms BIGINT,
      last_error TEXT,
      created_ms BIGINT NOT NULL,
      updated_ms BIGINT NOT NULL
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_jobs_ready ON svc_jobs (kind, status, run_after_ms)
    --;;
    CREATE INDEX IF NOT EXISTS svc_jobs_ref ON svc_jobs (ref)`,
  },
  {
    version: 13,
    name: 'auth_listeners',
    // The runtimes that cache verified tokens, each with the time it last proved it is listening
    // for revocations. A revocation waits for every live one to acknowledge it.
    sql: `CREATE TABLE IF NOT EXISTS svc_auth_listeners (
      listener_id TEXT PRIMARY KEY,
      seen_ms BIGINT NOT NULL
    )`,
  },
  {
    version: 14,
    name: 'run_events',
    // The events of each run as it streamed them (consecutive text deltas merged), numbered per
    // run, so a client can follow a run from any runtime: replay what is stored, then what comes.
    sql: `CREATE TABLE IF NOT EXISTS svc_run_events (
      run_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      event TEXT NOT NULL,
      data TEXT NOT NULL,
      created_ms BIGINT NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`,
  },
  {
    version: 15,
    name: 'auth_failures',
    // Failed authentications per client address and fixed window, counted by every runtime, so
    // the 429 after repeated failures holds however a load balancer spreads the attempts.
    sql: `CREATE TABLE IF NOT EXISTS svc_auth_failures (
      client TEXT NOT NULL,
      window_ms BIGINT NOT NULL,
      failures INTEGER NOT NULL,
      PRIMARY KEY (client, window_ms)
    )`,
  },
  {
    // Versions 16-29 are left to other capabilities in flight; knowledge owns 30 and up.
    version: 30,
    name: 'knowledge_contents',
    // One row per piece of content uploaded through /knowledge/content. Its id is the
    // content_id of its chunks in the knowledge's vector store, so deleting a row can remove
    // them. Times are epoch milliseconds: uploads in the same second still sort in order.
    sql: `CREATE TABLE IF NOT EXISTS svc_knowledge_contents (
      id TEXT PRIMARY KEY,
      knowledge_id TEXT NOT NULL,
      name TEXT,
      description TEXT,
      metadata TEXT,
      file_type TEXT,
      size BIGINT,
      reader_id TEXT,
      chunker TEXT,
      status TEXT NOT NULL,
      status_message TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_contents_by_knowledge ON svc_knowledge_contents (knowledge_id, created_at)
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_contents_by_status ON svc_knowledge_contents (knowledge_id, status)`,
  },
  {
    version: 31,
    name: 'knowledge_content_identity',
    // content_hash: SHA-256 of the bytes last ingested, so a refresh that reads the same bytes
    // changes nothing; chunks: how many chunks the completed content has.
    sql: `ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS content_hash TEXT
    --;;
    ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS chunks INTEGER`,
  },
  {
    version: 32,
    name: 'knowledge_content_children',
    // A collection (a website, a prefix, a folder) is one record owning a child record per page
    // or file. parent_id: the owning record; source_key: the child's place in the collection
    // (a page URL, an object key, a file path); source_version: what the source says changes
    // with the bytes (an ETag, a blob sha), so a refresh skips an unchanged child unread.
    sql: `ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS parent_id TEXT
    --;;
    ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS source_key TEXT
    --;;
    ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS source_version TEXT
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_contents_by_parent ON svc_knowledge_contents (knowledge_id, parent_id)`,
  },
  {
    version: 43,
    name: 'knowledge_content_owner',
    // The user who uploaded the content (JWT sub, sa:<name>, an SDK caller's user); NULL is
    // shared, as every record before this step is. Listings under user isolation read by
    // (knowledge_id, user_id).
    sql: `ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS user_id TEXT
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_contents_by_owner ON svc_knowledge_contents (knowledge_id, user_id)`,
  },
  {
    version: 44,
    name: 'job_data_files',
    // On a SQLite file, a large job input (an upload over 1 MiB) is kept in a file beside the
    // database rather than in the row (writing 10 MB into the row blocked the event loop for
    // ~60-130 ms, and every later UPDATE of the row rewrote it); data_file names that file.
    // PostgreSQL keeps inputs in the row, so any host can take the job; the column stays NULL.
    sql: `ALTER TABLE svc_jobs ADD COLUMN IF NOT EXISTS data_file TEXT`,
  },
  {
    version: 45,
    name: 'job_crashes',
    // Attempts that ended without a result: the job was claimed again while still `running`
    // (the process running it died and its lease ran out). A job whose runtime died twice on it
    // fails instead of being run again, so one poison input cannot crash-loop every runtime.
    sql: `ALTER TABLE svc_jobs ADD COLUMN IF NOT EXISTS crashes INTEGER NOT NULL DEFAULT 0`,
  },
  {
    version: 46,
    name: 'traces',
    // What every run did: one summary row per run (the filters and metrics read it, one query per
    // page) and its span tree (run -> model, tool, knowledge, member, step). Not tied to
    // svc_runs by a key: deleting a session leaves its traces until TRACE_RETENTION_DAYS removes
    // them. Token counts are columns, not attributes, so metrics sum them in SQL on both stores.
    sql: `CREATE TABLE IF NOT EXISTS svc_traces (
      trace_id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL,
      component_type TEXT NOT NULL,
      component_id TEXT NOT NULL,
      user_id TEXT,
      status TEXT NOT NULL,
      error TEXT,
      start_ms BIGINT NOT NULL,
      end_ms BIGINT NOT NULL,
      duration_ms BIGINT NOT NULL,
      input_tokens BIGINT NOT NULL,
      output_tokens BIGINT NOT NULL
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_traces_by_time ON svc_traces (start_ms)
    --;;
    CREATE INDEX IF NOT EXISTS svc_traces_by_component ON svc_traces (component_type, component_id, start_ms)
    --;;
    CREATE INDEX IF NOT EXISTS svc_traces_by_user ON svc_traces (user_id, start_ms)
    --;;
    CREATE INDEX IF NOT EXISTS svc_traces_by_session ON svc_traces (session_id, start_ms)
    --;;
    CREATE TABLE IF NOT EXISTS svc_trace_spans (
      trace_id TEXT NOT NULL,
      span_id TEXT NOT NULL,
      parent_id TEXT,
      kind TEXT NOT NULL,
      name TEXT NOT NULL,
      start_ms BIGINT NOT NULL,
      end_ms BIGINT NOT NULL,
      status TEXT NOT NULL,
      input_tokens BIGINT,
      output_tokens BIGINT,
      attributes TEXT NOT NULL,
      PRIMARY KEY (trace_id, span_id)
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_trace_spans_by_kind ON svc_trace_spans (kind, start_ms)`,
  },
  {
    version: 47,
    name: 'trace cache tokens',
    // A model call's prompt-cache reads and writes as columns, so GET /metrics prices cached
    // input at its own rate (MODEL_PRICES_JSON's cached_input) in the same two queries. Null
    // where the provider reported none, and for spans written before this step.
    sql: `ALTER TABLE svc_trace_spans ADD COLUMN cached_input_tokens BIGINT
    --;;
    ALTER TABLE svc_trace_spans ADD COLUMN cache_write_input_tokens BIGINT`,
  },
  {
    version: 48,
    name: 'knowledge_content_versions',
    // chunker_settings: what the chunker was built with (JSON: chunk_size, chunk_overlap, ...),
    // so a record says how its chunks were made. submitted_at: when an upload last queued the
    // record (NULL: at its creation), the order of the versions of one name; the name index
    // finds the earlier versions an upload under that name replaces when it completes.
    sql: `ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS chunker_settings TEXT
    --;;
    ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS submitted_at BIGINT
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_contents_by_name ON svc_knowledge_contents (knowledge_id, name)`,
  },
  {
    version: 49,
    name: 'knowledge_evals',
    // Retrieval evaluations (POST /knowledge/evals): the labelled queries in (input, JSON), the
    // figures per search type out (results, JSON), and what the base was built with when it ran
    // (settings, JSON: embedder, chunkers), so evals before and after a reindex compare. The
    // job that runs one is svc_jobs' (ref `evals/<id>`); the row is the record users read.
    sql: `CREATE TABLE IF NOT EXISTS svc_knowledge_evals (
      id TEXT PRIMARY KEY,
      knowledge_id TEXT NOT NULL,
      name TEXT,
      user_id TEXT,
      status TEXT NOT NULL,
      error TEXT,
      input TEXT NOT NULL,
      search_types TEXT NOT NULL,
      k INTEGER NOT NULL,
      recall_k INTEGER NOT NULL,
      queries_total INTEGER NOT NULL,
      queries_done INTEGER NOT NULL DEFAULT 0,
      settings TEXT,
      results TEXT,
      details TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      started_at BIGINT,
      finished_at BIGINT
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_evals_by_base ON svc_knowledge_evals (knowledge_id, created_at)`,
  },
];

/** Checks that a migration list is strictly increasing, so a bad merge fails loudly at start. */
export function assertOrdered(migrations: readonly Migration[]): void {
  let last = 0;
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version <= last) {
      throw new Error(`migration ${m.name} has version ${m.version}, which is not greater than ${last}`);
    }
    last = m.version;
  }
}
