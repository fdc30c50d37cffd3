/**
 * @module storage/migrations-platform
 * The schema's steps from 49 on: the platform around the runtime (memory, schedules, webhooks,
 * evals, durable runs, ...). Appended to storage/migrations.ts's list, under the same rules:
 * never edit a shipped step, add a new one at the end, versions strictly increasing.
 */
import type { Migration } from './db.js';

export const PLATFORM_MIGRATIONS: readonly Migration[] = [
  {
    version: 49,
    name: 'memories',
    // What agents remember about their users (memory/): one row per fact. Every read and write
    // names user_id in its WHERE, so the (user_id, changed_ms) index serves them all. topic_keys
    // holds the topics lowercased between bars (|food|travel|), so a topic filter is one LIKE on
    // both stores. version grows by one on every change: updates compare it (no lost update
    // when two runs change one memory at once). embedding: the vector (JSON) and the embedder
    // that made it, for semantic recall; NULL without an embedder. changed_ms: the last change in
    // milliseconds (created_at and updated_at are seconds, as everywhere in the API), the order
    // recall reads a user's most recent memories in.
    sql: `CREATE TABLE IF NOT EXISTS svc_memories (
      memory_id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL,
      memory TEXT NOT NULL,
      topics TEXT NOT NULL,
      topic_keys TEXT NOT NULL,
      agent_id TEXT,
      run_id TEXT,
      embedding TEXT,
      embedder TEXT,
      version BIGINT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      changed_ms BIGINT NOT NULL
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_memories_by_user ON svc_memories (user_id, changed_ms)`,
  },
  {
    version: 50,
    name: 'session_summaries',
    // A long session's older turns, summarised (memory/summaries): the prompt carries the summary
    // in their place; the runs stay stored. through_ms: the start of the last run folded in,
    // so a refresh folds only the runs after it. version: as in svc_memories.
    sql: `CREATE TABLE IF NOT EXISTS svc_session_summaries (
      session_id TEXT PRIMARY KEY,
      summary TEXT NOT NULL,
      through_ms BIGINT NOT NULL,
      runs_summarised BIGINT NOT NULL,
      version BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
  },
  {
    version: 51,
    name: 'schedules',
    // next_fire_ms (NULL while disabled) moves on by compare-and-set in the runtime that fires; a row
    // per (schedule, trigger, occurrence) is the second guard against a double fire. enabled: 0/1.
    sql: `CREATE TABLE IF NOT EXISTS svc_schedules (
      schedule_id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      cron TEXT NOT NULL,
      timezone TEXT NOT NULL,
      target_kind TEXT NOT NULL,
      target_id TEXT NOT NULL,
      input TEXT NOT NULL,
      webhook TEXT,
      enabled BIGINT NOT NULL,
      user_id TEXT,
      next_fire_ms BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_schedules_due ON svc_schedules (next_fire_ms)
    --;;
    CREATE TABLE IF NOT EXISTS svc_schedule_occurrences (
      schedule_id TEXT NOT NULL REFERENCES svc_schedules (schedule_id) ON DELETE CASCADE,
      trigger TEXT NOT NULL,
      occurrence_ms BIGINT NOT NULL,
      state TEXT NOT NULL,
      run_id TEXT,
      error TEXT,
      fired_by TEXT,
      recorded_ms BIGINT NOT NULL,
      PRIMARY KEY (schedule_id, trigger, occurrence_ms)
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_schedule_occurrences_recent ON svc_schedule_occurrences (schedule_id, recorded_ms)`,
  },
  {
    version: 52,
    name: 'webhook_deliveries',
    // One delivery per (run, URL), due once the run has ended, leased for one attempt at a time
    // (one process sends each attempt; a restart loses nothing); an attempt row per attempt.
    sql: `CREATE TABLE IF NOT EXISTS svc_webhook_deliveries (
      delivery_id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES svc_runs (run_id) ON DELETE CASCADE,
      url TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts BIGINT NOT NULL,
      next_attempt_ms BIGINT NOT NULL,
      lease_owner TEXT,
      lease_until_ms BIGINT,
      created_ms BIGINT NOT NULL,
      UNIQUE (run_id, url)
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_webhook_deliveries_due ON svc_webhook_deliveries (state, next_attempt_ms)
    --;;
    CREATE TABLE IF NOT EXISTS svc_webhook_attempts (
      delivery_id TEXT NOT NULL REFERENCES svc_webhook_deliveries (delivery_id) ON DELETE CASCADE,
      attempt BIGINT NOT NULL,
      status_code BIGINT,
      error TEXT,
      duration_ms BIGINT NOT NULL,
      attempted_ms BIGINT NOT NULL,
      PRIMARY KEY (delivery_id, attempt)
    )`,
  },
  {
    version: 53,
    name: 'durable_runs',
    // Runs that outlive their request (docs/ARCHITECTURE.md, "Durable runs"). The index finds a
    // session's runs in progress (RUNNING, or PENDING: queued behind another) for the
    // per-session concurrency policy. svc_idempotency_keys: one row per (principal, key) for 24 h;
    // the primary key makes concurrent repeats on any runtimes create one run or record.
    // fingerprint: SHA-256 of the method, path and canonical body; resource_id: the run or record
    // made; response_status/_body: the answer replayed for records (runs are re-read instead).
    sql: `CREATE INDEX IF NOT EXISTS svc_runs_in_progress ON svc_runs (session_id, started_ms) WHERE status IN ('RUNNING', 'PENDING')
    --;;
    CREATE TABLE IF NOT EXISTS svc_idempotency_keys (
      principal TEXT NOT NULL,
      idem_key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      resource_id TEXT,
      response_status INTEGER,
      response_body TEXT,
      created_ms BIGINT NOT NULL,
      expires_ms BIGINT NOT NULL,
      PRIMARY KEY (principal, idem_key)
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_idempotency_keys_expiry ON svc_idempotency_keys (expires_ms)`,
  },
  {
    version: 54,
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
  {
    version: 55,
    name: 'budgets',
    // Budgets created through the API (budgets/): a limit on one metric (runs, tokens, cost) per
    // window (hour, day, month) for a scope (principal, tenant, agent) and optionally one subject.
    // period and limit_value: WINDOW and LIMIT are reserved words. The ones in code are not here.
    sql: `CREATE TABLE IF NOT EXISTS svc_budgets (
      id TEXT PRIMARY KEY,
      scope TEXT NOT NULL,
      subject TEXT,
      metric TEXT NOT NULL,
      period TEXT NOT NULL,
      limit_value DOUBLE PRECISION NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
  },
  {
    version: 56,
    name: 'budget usage counters',
    // What each principal, tenant and agent used in each window's bucket (bucket_ms: the window's
    // start, UTC). Changed only by INSERT ... ON CONFLICT DO UPDATE ... RETURNING, so runtimes on
    // one PostgreSQL count together; cost in whole nano-USD so sums never round.
    sql: `CREATE TABLE IF NOT EXISTS svc_budget_usage (
      scope TEXT NOT NULL,
      subject TEXT NOT NULL,
      period TEXT NOT NULL,
      bucket_ms BIGINT NOT NULL,
      runs BIGINT NOT NULL DEFAULT 0,
      input_tokens BIGINT NOT NULL DEFAULT 0,
      output_tokens BIGINT NOT NULL DEFAULT 0,
      cost_nanousd BIGINT NOT NULL DEFAULT 0,
      updated_ms BIGINT NOT NULL,
      PRIMARY KEY (scope, subject, period, bucket_ms)
    )
    --;;
    CREATE INDEX IF NOT EXISTS svc_budget_usage_by_bucket ON svc_budget_usage (bucket_ms)`,
  },
  {
    version: 57,
    name: 'tenants',
    // Tenancy (authorization_config.tenant_claim; docs/ARCHITECTURE.md, "Isolation and
    // tenants"): the tenant each row belongs to. NULL for every row written before this step or
    // with tenancy off; once tenancy is on such rows are visible to global admins only, since
    // every confined read says tenant_id = <the caller's>. Runs and traces take their session's
    // tenant when written. The indexes lead with the tenant for the confined listings.
    sql: `ALTER TABLE svc_sessions ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    ALTER TABLE svc_runs ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    ALTER TABLE svc_traces ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    ALTER TABLE svc_memories ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    ALTER TABLE svc_knowledge_contents ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    ALTER TABLE svc_schedules ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    ALTER TABLE svc_service_accounts ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    CREATE INDEX IF NOT EXISTS svc_sessions_by_tenant ON svc_sessions (tenant_id, user_id, created_at)
    --;;
    CREATE INDEX IF NOT EXISTS svc_runs_by_tenant ON svc_runs (tenant_id, component_id, started_ms)
    --;;
    CREATE INDEX IF NOT EXISTS svc_runs_by_user ON svc_runs (user_id, component_id, started_ms)
    --;;
    CREATE INDEX IF NOT EXISTS svc_traces_by_tenant ON svc_traces (tenant_id, start_ms)
    --;;
    CREATE INDEX IF NOT EXISTS svc_memories_by_tenant ON svc_memories (tenant_id, user_id)
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_contents_by_tenant ON svc_knowledge_contents (knowledge_id, tenant_id)
    --;;
    CREATE INDEX IF NOT EXISTS svc_schedules_by_tenant ON svc_schedules (tenant_id, created_at)
    --;;
    CREATE INDEX IF NOT EXISTS svc_service_accounts_by_tenant ON svc_service_accounts (tenant_id, created_at)`,
  },
  {
    version: 58,
    name: 'tenant evals',
    // Knowledge evaluations belong to the tenant of whoever started them, like the contents they
    // search (docs/ARCHITECTURE.md, "Isolation and tenants"); NULL before this step or without
    // tenancy, which tenant-confined reads never match.
    sql: `ALTER TABLE svc_knowledge_evals ADD COLUMN IF NOT EXISTS tenant_id TEXT
    --;;
    CREATE INDEX IF NOT EXISTS svc_knowledge_evals_by_tenant ON svc_knowledge_evals (knowledge_id, tenant_id, created_at)`,
  },
];
