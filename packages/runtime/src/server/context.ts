/**
 * @module server/context
 * What route handlers may see of the runtime. Routes depend on this narrow view, not on the
 * Runtime class, so the server layer has no import cycle with it.
 */
import type { BlockList } from 'node:net';
import type { BackgroundTasks } from '../run/background-tasks.js';
import type { AuthMode } from '../auth/auth-mode.js';
import type { Authenticator, Visible } from '../auth/authenticator.js';
import type { Principal } from '../auth/principal.js';
import type { ServiceAccountStore } from '../auth/service-accounts/service-account-store.js';
import type { HostedComponent, KnowledgeComponent } from '../components/component.js';
import type { JobWorker } from '../jobs/job-worker.js';
import type { ContentService } from '../knowledge/content/service.js';
import type { MemoryStore } from '../memory/memory-store.js';
import type { EvalService } from '../knowledge/evals/service.js';
import type { Runner } from '../run/runner.js';
import type { Budgets } from '../budgets/budgets.js';
import type { DurableRuns } from '../run/durable-runs.js';
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { Traces } from '../traces/traces.js';
import type { Db } from '../storage/db.js';
import type { Logger } from '../util/logger.js';
import type { ScheduleService } from '../schedules/service.js';
import type { Webhooks } from '../webhooks/webhooks.js';

export interface McpInfo {
  enabled: boolean;
  path: string | null;
  oauth: { authorization_servers: string[] | null; resource: string | null } | null;
}

export interface ServerContext {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly version: string;
  readonly instantiatedAt: Date;
  readonly agents: readonly HostedComponent[];
  readonly teams: readonly HostedComponent[];
  readonly workflows: readonly HostedComponent[];
  readonly knowledge: readonly KnowledgeComponent[];
  readonly db: Db;
  readonly authMode: AuthMode;
  readonly mcp: McpInfo;
  readonly maxBodyBytes: number;
  /** Proxies whose X-Forwarded-For is believed; undefined trusts none. */
  readonly trustedProxies: BlockList | undefined;
  readonly log: Logger;
  readonly sessions: SessionStore;
  /** What agents remember about their users (GET /memories). */
  readonly memories: MemoryStore;
  readonly runner: Runner;
  /** Background and queued runs, and the per-session concurrency policy. */
  readonly durable: DurableRuns;
  /** `Idempotency-Key`s of run and content POSTs. */
  readonly idempotency: IdempotencyStore;
  /** Runs' traces and usage metrics (GET /traces, /metrics). */
  readonly traces: Traces;
  /** Work requests start without waiting for it; shutdown drains it. */
  readonly tasks: BackgroundTasks;
  /** Durable background jobs (content ingestion, reindexing); the runtime registers their handlers. */
  readonly jobs: JobWorker;
  /** The content records and uploads of the knowledge bases that take content. */
  readonly content: ContentService;
  /** Retrieval evaluations of those knowledge bases (POST /knowledge/evals). */
  readonly evals: EvalService;
  /** Host names besides loopback that an open runtime's MCP endpoint accepts. */
  readonly mcpAllowedHosts: readonly string[];
  readonly auth: Authenticator;
  readonly serviceAccountStore: ServiceAccountStore;
  /** Run webhooks: checked on run requests, delivered in the background (GET .../runs/{run_id}/webhooks). */
  readonly webhooks: Webhooks;
  /** The schedules (/schedules); every runtime's scheduler fires their occurrences. */
  readonly schedules: ScheduleService;
  /** Limits on runs, tokens and cost (/budgets, /usage). */
  readonly budgets: Budgets;
}

/** Hono's per-request environment for our app. */
export interface AppEnv {
  Variables: {
    /** Set by the auth guard on every route that is not public. */
    principal: Principal | undefined;
    /** What a listing route may show (per-resource read scopes); '*' for everything. */
    visible: Visible | undefined;
  };
}
