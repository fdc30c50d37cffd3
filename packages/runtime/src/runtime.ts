/**
 * @module runtime
 * The Runtime: options in, an HTTP service out.
 *
 * @example
 * ```ts
 * const runtime = new Runtime({ name: 'Support', agents: [supportAgent], mcp_server: true });
 * const server = await runtime.serve(); // http://localhost:7777
 * ```
 */
import { BackgroundTasks } from './run/background-tasks.js';
import { createHash } from 'node:crypto';
import type { BlockList } from 'node:net';
import { hostname } from 'node:os';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { resolveAuthMode, type AuthMode } from './auth/auth-mode.js';
import type { Authenticator } from './auth/authenticator.js';
import { createAuthenticator } from './auth/setup.js';
import type { Revocations } from './auth/service-accounts/revocations.js';
import type { ServiceAccountStore } from './auth/service-accounts/service-account-store.js';
import type { HostedComponent, KnowledgeComponent } from './components/component.js';
import { withMembers } from './components/walk.js';
import { noTracer } from './components/tracer.js';
import { readSettings, type Settings } from './settings/runtime.js';
import { ConfigurationError } from './errors.js';
import { describeIssues, runtimeOptionsSchema, type RuntimeOptions } from './runtime-options.js';
import { buildApp, type AppParts, type BuiltApp } from './server/app.js';
import type { AppEnv, McpInfo, ServerContext } from './server/context.js';
import { consoleLogger, type Logger } from './util/logger.js';
import type { RouteEntry } from './server/route.js';
import { trustedProxyList } from './server/client-address.js';
import { closeServer, listen } from './server/serve.js';
import type { Db } from './storage/db.js';
import { openDb } from './storage/open-db.js';
import { PACKAGE_VERSION } from './version.js';
import type { Model } from './model/model.js';
import { modelFromEnvironment } from './providers/from-environment.js';
import { JobStore } from './jobs/job-store.js';
import { JobWorker } from './jobs/job-worker.js';
import { checkKnowledgeEmbedders } from './knowledge/reindex/reindex-job.js';
import { ContentService } from './knowledge/content/service.js';
import type { MemoryServices } from './memory/agent-memory.js';
import { MemoryStore } from './memory/memory-store.js';
import { EvalService } from './knowledge/evals/service.js';
import { Runner } from './run/runner.js';
import { Budgets } from './budgets/budgets.js';
import { codeBudgets } from './budgets/code-budgets.js';
import { DurableRuns } from './run/durable-runs.js';
import { isRunnable } from './run/execution.js';
import { IdempotencyStore } from './idempotency/idempotency-store.js';
import { SessionStore } from './sessions/session-store.js';
import { otlpSinkFromEnv } from './traces/otlp-export.js';
import { Traces } from './traces/traces.js';
import { ScheduleStore } from './schedules/schedule-store.js';
import { Scheduler } from './schedules/scheduler.js';
import { ScheduleService } from './schedules/service.js';
import type { TargetKind } from './schedules/types.js';
import type { Runnable } from './run/execution.js';
import { Webhooks } from './webhooks/webhooks.js';
import { toolSourcesOf } from './mcp-client/hosted.js';
import type { ToolSource } from './tools/tool-source.js';

export interface ServeOptions {
  /** Defaults to `PORT` or 7777; 0 picks a free port. */
  port?: number;
  /** Defaults to `HOST` or `localhost`. */
  host?: string;
  /** Close connections still open this long after shutdown starts; default 10 s. */
  shutdownGraceMs?: number;
}

export interface RunningRuntime {
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish, then closes the database. Idempotent. */
  close(): Promise<void>;
}

/** Name-based UUID (RFC 4122 version 5, DNS namespace), so an unnamed id is stable across restarts. */
function uuidV5(name: string): string {
  const namespace = Buffer.from('6ba7b8109dad11d180b400c04fd430c8', 'hex');
  const hash = createHash('sha1').update(namespace).update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function assertUniqueIds(kind: string, components: readonly HostedComponent[]): void {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const c of components) (seen.has(c.id) ? duplicates : seen).add(c.id);
  if (duplicates.size > 0) {
    throw new ConfigurationError(`Duplicate ${kind} ids: ${[...duplicates].join(', ')}. Each ${kind} needs a unique id.`);
  }
}

/** Hands memory's services to every agent that takes them, team members (at any depth) included. */
function attachMemory(components: readonly HostedComponent[], services: MemoryServices): void {
  for (const c of withMembers(components)) (c as { useMemoryServices?: (s: MemoryServices) => void }).useMemoryServices?.(services);
}

/** A component's standing webhook needs a secret to sign with and an http(s) URL, checked at construction. */
function assertComponentWebhooks(components: readonly HostedComponent[], signed: boolean): void {
  for (const c of components) {
    if (c.webhook === undefined) continue;
    if (!signed) throw new ConfigurationError(`'${c.id}' declares a webhook: set WEBHOOK_SECRET (at least 16 characters) to sign its deliveries`);
    let url: URL | undefined;
    try {
      url = new URL(c.webhook);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
      throw new ConfigurationError(`'${c.id}' declares the webhook "${c.webhook}", which is not an http(s) URL without credentials`);
    }
  }
}

/** Background and queued runs this runtime executes at once (each mostly waits on its model). */
const RUN_JOB_CONCURRENCY = 16;

/** Time left before a deadline, never negative. */
function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}

export class Runtime implements ServerContext {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly version: string;
  readonly agents: readonly HostedComponent[];
  readonly teams: readonly HostedComponent[];
  readonly workflows: readonly HostedComponent[];
  readonly knowledge: readonly KnowledgeComponent[];
  readonly db: Db;
  readonly authMode: AuthMode;
  readonly mcp: McpInfo;
  readonly mcpAllowedHosts: readonly string[];
  readonly settings: Settings;
  readonly maxBodyBytes: number;
  readonly trustedProxies: BlockList | undefined;
  /** The one bound on what shutdown waits for. */
  readonly shutdownTimeoutMs: number;
  readonly instantiatedAt = new Date();
  readonly log: Logger;
  readonly sessions: SessionStore;
  readonly memories: MemoryStore;
  readonly runner: Runner;
  /** Limits on runs, tokens and cost (budgets/): checked at every run start and model call. */
  readonly budgets: Budgets;
  /** What every run did: the tracer runs record into, and the reads of GET /traces and /metrics. */
  readonly traces: Traces;
  readonly tasks = new BackgroundTasks();
  readonly jobs: JobWorker;
  /** The worker of background and queued runs' jobs: its own, so ingestion does not hold runs back. */
  readonly runJobs: JobWorker;
  readonly durable: DurableRuns;
  readonly idempotency: IdempotencyStore;
  readonly content: ContentService;
  readonly evals: EvalService;
  /** Used by components that have no model of their own. */
  readonly defaultModel: Model | undefined;
  readonly auth: Authenticator;
  readonly serviceAccountStore: ServiceAccountStore;
  /** Ended runs posted to the URLs their requests named (signed, retried, recorded). */
  readonly webhooks: Webhooks;
  /** The /schedules routes' service; the scheduler fires occurrences through it. */
  readonly schedules: ScheduleService;
  private readonly scheduler: Scheduler;
  /** Every tool source (MCP server) of the hosted agents, team members included; closed last. */
  readonly toolSources: readonly ToolSource[];
  /** Keeps every runtime's token cache honest about revocations. */
  private readonly revocations: Revocations;
  protected readonly options: RuntimeOptions;
  private built: BuiltApp | undefined;
  private migrated: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: RuntimeOptions = {}, internals: { logger?: Logger; parts?: AppParts; runLeaseMs?: number; schedulerTickMs?: number } = {}) {
    const parsed = runtimeOptionsSchema.safeParse(options);
    if (!parsed.success) throw new ConfigurationError(`Invalid Runtime options: ${describeIssues(parsed.error)}`);
    this.options = options;
    this.log = internals.logger ?? consoleLogger;
    this.parts = internals.parts ?? {};

    this.settings = readSettings(options.env ?? process.env);
    this.name = options.name ?? 'Runtime';
    this.id = options.id ?? uuidV5(this.name);
    this.description = options.description;
    this.version = options.version ?? PACKAGE_VERSION;
    this.agents = [...(options.agents ?? [])];
    this.teams = [...(options.teams ?? [])];
    this.workflows = [...(options.workflows ?? [])];
    this.knowledge = [...(options.knowledge ?? [])];
    assertUniqueIds('agent', this.agents);
    assertUniqueIds('team', this.teams);
    assertUniqueIds('workflow', this.workflows);
    assertUniqueIds('knowledge', this.knowledge);
    assertComponentWebhooks([...this.agents, ...this.teams, ...this.workflows], this.settings.webhooks.secret !== undefined);

    this.authMode = resolveAuthMode({
      authorization: options.authorization,
      verificationKeys: options.authorization_config?.verification_keys,
      jwksFile: options.authorization_config?.jwks_file,
      env: this.settings.env,
    });
    const mcpEnabled = options.mcp_server !== undefined && options.mcp_server !== false;
    const mcpPath = typeof options.mcp_server === 'object' ? (options.mcp_server.path ?? '/mcp') : '/mcp';
    const mcpOAuth = typeof options.mcp_server === 'object' ? options.mcp_server.oauth : undefined;
    if (mcpEnabled && mcpOAuth && this.authMode !== 'jwt') {
      throw new ConfigurationError('mcp_server.oauth needs JWT verification of the bearers clients bring back: set JWT_JWKS_FILE or JWT_VERIFICATION_KEY, or authorization_config.jwks_file / verification_keys');
    }
    this.mcp = {
      enabled: mcpEnabled,
      path: mcpEnabled ? mcpPath : null,
      oauth: mcpEnabled && mcpOAuth ? { authorization_servers: mcpOAuth.authorization_servers, resource: mcpOAuth.resource ?? null } : null,
    };
    this.mcpAllowedHosts = typeof options.mcp_server === 'object' ? (options.mcp_server.allowed_hosts ?? []) : [];
    this.maxBodyBytes = options.max_body_bytes ?? this.settings.maxBodyBytes;
    this.trustedProxies = options.trusted_proxies
      ? trustedProxyList(options.trusted_proxies, 'trusted_proxies')
      : trustedProxyList(this.settings.trustedProxies, 'TRUSTED_PROXIES');
    this.shutdownTimeoutMs = options.shutdown_timeout_seconds !== undefined ? options.shutdown_timeout_seconds * 1000 : this.settings.shutdownTimeoutMs;
    this.defaultModel = options.model ?? modelFromEnvironment(this.settings.env);
    // Knowledge bases without a model of their own chunk with this one (AgenticChunker).
    for (const k of this.knowledge) (k as { useRuntimeModel?: (model: Model | undefined) => void }).useRuntimeModel?.(this.defaultModel);
    // Opened last: nothing above can fail after a database file has been created.
    this.db = options.db ?? openDb(this.settings.databaseUrl);
    ({ auth: this.auth, store: this.serviceAccountStore, revocations: this.revocations } = createAuthenticator({
      mode: this.authMode,
      authorization: options.authorization,
      config: options.authorization_config,
      runtimeId: this.id,
      settings: this.settings.auth,
      db: this.db,
      log: this.log,
    }));
    this.sessions = new SessionStore(this.db);
    this.memories = new MemoryStore(this.db);
    // Agents with memory (team members included) keep it in this database; extraction after a
    // run is background work that shutdown waits for.
    attachMemory([...this.agents, ...this.teams], { store: this.memories, track: (task) => this.tasks.track(task), log: this.log });
    this.traces = new Traces({
      db: this.db,
      log: this.log,
      retentionDays: this.settings.traceRetentionDays,
      prices: this.settings.modelPrices,
      // OTLP export when the standard OTEL_* variables ask for it. The SDK reads them from the
      // process environment, as every OpenTelemetry service does, so the decision does too.
      exportSink: otlpSinkFromEnv(process.env, this.log),
    });
    this.budgets = new Budgets({ db: this.db, code: codeBudgets(options.budgets ?? []), prices: this.settings.modelPrices, log: this.log });
    this.runner = new Runner({
      budgets: this.budgets,
      tracer: this.settings.tracesEnabled ? this.traces.tracer : noTracer,
      store: this.sessions,
      defaultModel: this.defaultModel,
      log: this.log,
      leaseMs: internals.runLeaseMs ?? this.settings.runLeaseMs,
      userIsolation: this.auth.userIsolation,
    });
    this.jobs = new JobWorker({ store: new JobStore(this.db), log: this.log, leaseMs: internals.runLeaseMs ?? this.settings.runLeaseMs });
    // Same job table, own claims: up to RUN_JOB_CONCURRENCY queued runs execute here at once.
    this.runJobs = new JobWorker({ store: this.jobs.store, log: this.log, leaseMs: internals.runLeaseMs ?? this.settings.runLeaseMs, concurrency: RUN_JOB_CONCURRENCY });
    this.durable = new DurableRuns({ runner: this.runner, sessions: this.sessions, jobs: this.runJobs, log: this.log });
    this.durable.register([...this.agents, ...this.teams, ...this.workflows].filter(isRunnable));
    this.idempotency = new IdempotencyStore(this.db);
    this.content = new ContentService({ db: this.db, jobs: this.jobs, knowledge: this.knowledge, log: this.log });
    this.content.registerJobs();
    this.toolSources = toolSourcesOf([...this.agents, ...this.teams], { env: this.settings.env, log: this.log });
    this.webhooks = new Webhooks({ db: this.db, sessions: this.sessions, settings: this.settings.webhooks, log: this.log });
    this.schedules = new ScheduleService({
      store: new ScheduleStore(this.db),
      runner: this.runner,
      webhooks: this.webhooks,
      target: (kind, id) => this.runnable(kind, id),
      log: this.log,
    });
    this.scheduler = new Scheduler({
      service: this.schedules,
      log: this.log,
      catchupMs: this.settings.scheduleCatchupMs,
      ...(internals.schedulerTickMs ? { tickMs: internals.schedulerTickMs } : {}),
    });
    this.evals = new EvalService({ db: this.db, jobs: this.jobs, bases: () => this.content.bases, log: this.log });
    this.evals.registerJobs();
  }

  /** The hosted agent, team or workflow a schedule names, if it can run. */
  private runnable(kind: TargetKind, id: string): Runnable | undefined {
    const list = kind === 'agent' ? this.agents : kind === 'team' ? this.teams : this.workflows;
    const found = list.find((c) => c.id === id) as Partial<Runnable> | undefined;
    return typeof found?.execute === 'function' && found.kind === kind ? (found as Runnable) : undefined;
  }

  private readonly parts: AppParts;

  private build(): BuiltApp {
    this.built ??= buildApp(this, this.parts);
    return this.built;
  }

  /** The Hono app; mount it in another server or call `fetch` directly in tests. */
  get app(): OpenAPIHono<AppEnv> {
    return this.build().app;
  }

  /** Every route with its access decision (for audits and the route-coverage test). */
  get routes(): readonly RouteEntry[] {
    return this.build().routes;
  }

  /** Answers one request. Call `start()` first when routes need the database. */
  // `env` carries the Node socket when served, which the auth layer reads the client address from.
  fetch = (request: Request, env?: unknown): Promise<Response> => Promise.resolve(this.app.fetch(request, env));

  /** Prepares storage (migrations). Idempotent; `serve()` calls it. */
  start(): Promise<void> {
    // Once the schema is there, runs left behind by dead processes are finalised.
    this.migrated ??= this.db.migrate().then(async () => {
      // A store built by another embedder refuses the start (or, asked to, re-embeds in the background).
      await checkKnowledgeEmbedders(this.knowledge, this.jobs, this.settings.knowledgeReindex, this.log);
      this.runner.startMaintenance();
      this.traces.start();
      // Job input files no job names (a crash between writing one and committing its job).
      const swept = await this.jobs.store.sweepDataFiles();
      if (swept > 0) this.log.warn(`removed ${swept} job input file(s) no job referenced`);
      this.jobs.start();
      this.webhooks.start();
      if (this.settings.schedulesEnabled) this.scheduler.start();
      this.durable.start();
      await this.revocations.start();
    });
    return this.migrated;
  }

  /** Starts the HTTP server. Resolves once it accepts connections. */
  async serve(options: ServeOptions = {}): Promise<RunningRuntime> {
    this.build();
    await this.start();
    const host = options.host ?? this.settings.host;
    const listening = await listen(this.fetch, { port: options.port ?? this.settings.port, host });
    await this.runner.adoptNode(`${hostname()}:${listening.port}`);
    let stopped: Promise<void> | undefined;
    return {
      url: listening.url,
      port: listening.port,
      close: () => {
        // One bound for everything: runs are cancelled (and saved) first, so open event streams
        // end and the server can close; then jobs, background work and the database.
        const deadline = Date.now() + this.shutdownTimeoutMs;
        // The scheduler stops first, so no occurrence is taken that this runtime cannot start.
        stopped ??= this.scheduler
          .stop()
          .then(() => this.runner.shutdown(remaining(deadline)))
          .then(() => closeServer(listening.server, options.shutdownGraceMs ?? remaining(deadline)))
          .then(() => this.closeBy(deadline));
        return stopped;
      },
    };
  }

  /**
   * Cancels active runs, hands running jobs back to the queue (another runtime or the next start
   * finishes them), lets other background work finish, then releases the database. Idempotent.
   */
  close(): Promise<void> {
    return this.closeBy(Date.now() + this.shutdownTimeoutMs);
  }

  /**
   * Shutdown within one bound (`shutdown_timeout_seconds`): runs still going when it is reached
   * are recorded as interrupted, running jobs go back to the queue, and nothing waits past it.
   */
  private closeBy(deadline: number): Promise<void> {
    this.closing ??= this.scheduler
      .stop()
      .then(() => this.runner.shutdown(remaining(deadline)))
      .then(() => Promise.all([this.jobs.stop(remaining(deadline)), this.runJobs.stop(remaining(deadline))]))
      // After every run has ended, so their deliveries are due and recorded.
      .then(() => this.webhooks.stop(remaining(deadline)))
      .then(() => this.tasks.drain(remaining(deadline)))
      // After the runs: no call is left for the MCP servers, whose processes end here.
      .then(() => Promise.all(this.toolSources.map((s) => s.close().catch((e: unknown) => this.log.warn(`closing MCP server ${s.id}: ${String(e)}`)))))
      // After the runs have ended (their last spans are buffered), before the database closes.
      .then(() => this.traces.close())
      .then(() => this.revocations.stop())
      .then(() => this.jobs.store.settled())
      .then(() => this.db.close());
    return this.closing;
  }
}
