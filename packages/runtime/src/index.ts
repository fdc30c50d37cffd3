/**
 * @module @svc/runtime
 * The runtime's public API: the Runtime, its options, storage, and the error types.
 */
export { Runtime, type RunningRuntime, type ServeOptions } from './runtime.js';
export type { RuntimeOptions, McpServerConfig } from './runtime-options.js';
export type { AuthorizationConfig } from './auth/options.js';
export type { HostedComponent, KnowledgeComponent, SearchableKnowledge } from './components/component.js';
export { Agent, type AgentOptions } from './agent/agent.js';
export type { AgentMemoryOptions } from './memory/agent-memory.js';
export { MemoryStore } from './memory/memory-store.js';
export type { MemoryRecord, MemoryQuery } from './memory/types.js';
export { Team, type TeamOptions, type TeamMode } from './team/team.js';
export { Workflow, type WorkflowOptions } from './workflow/workflow.js';
export { step, parallel, condition, type Step, type StepInput, type StepFunction, type WorkflowStep } from './workflow/steps.js';
export { tool, withMedia, type FunctionTool, type AnyFunctionTool, type ToolContext, type ToolResultWithMedia } from './tools/function-tool.js';
export { signWebhook, verifyWebhook, SIGNATURE_HEADER, type VerifyOptions } from './webhooks/signature.js';
export type { ToolSource, ToolSourceContext } from './tools/tool-source.js';
export type { RunCaller } from './components/caller.js';
export * from './mcp-client/index.js';
export type { Runnable, ExecutionContext, ExecutionResult } from './run/execution.js';
export type { RunEvent } from './run/run-events.js';
export type { RunRecord, SessionRecord, RunStatus, SessionType } from './sessions/types.js';
export * from './model/index.js';
export * from './providers/index.js';
export type { AuthMode } from './auth/auth-mode.js';
export { ConfigurationError, RuntimeError, ERROR_CODES, type ErrorCode, type FieldError } from './errors.js';
export type { Db, DbKind, SqlClient, SqlValue, Migration, MigrationReport } from './storage/db.js';
export { SqliteDb, type SqliteDbOptions } from './storage/sqlite/sqlite-db.js';
export { PostgresDb, type PostgresDbOptions } from './storage/postgres/postgres-db.js';
export { openDb, parseDatabaseUrl, DEFAULT_DATABASE_PATH } from './storage/open-db.js';
export { readSettings, type Settings } from './settings/runtime.js';
export { DEFAULT_PORT, DEFAULT_HOST } from './settings/server.js';
export { readModelPrices, type ModelPrice, type ModelPrices } from './settings/pricing.js';
export type { BudgetDefinition, BudgetMetric, BudgetScope, BudgetWindow } from './budgets/types.js';
export type { Logger } from './util/logger.js';
export { consoleLogger, silentLogger } from './util/logger.js';
export type { Access, RouteEntry } from './server/route.js';
export { API_VERSION } from './server/app.js';
export { serveUntilStopped } from './serve-until-stopped.js';
export * from './knowledge/index.js';
