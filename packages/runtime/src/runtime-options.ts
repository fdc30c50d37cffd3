/**
 * @module runtime-options
 * The options a Runtime takes, under the specification's exact names, validated with zod so
 * that a mistake fails at construction with a message naming the option.
 */
import { budgetDefinitionSchema, type BudgetDefinition } from './budgets/types.js';
import { z } from 'zod';
import type { HostedComponent, KnowledgeComponent } from './components/component.js';
import { isHostedComponent } from './components/component.js';
import type { Environment } from './settings/environment.js';
import type { Model } from './model/model.js';
import type { Db } from './storage/db.js';
import { authorizationConfigSchema, type AuthorizationConfig } from './auth/options.js';

const component = z.custom<HostedComponent>(isHostedComponent, {
  message: 'must be an object with a non-empty string id',
});

const db = z.custom<Db>(
  (v) => typeof v === 'object' && v !== null && typeof (v as Db).migrate === 'function' && typeof (v as Db).query === 'function',
  { message: 'must be a Db (for example from openDb(), SqliteDb or PostgresDb)' },
);

export const mcpServerConfigSchema = z
  .object({
    /** Where the MCP endpoint is mounted; defaults to `/mcp`. */
    path: z
      .string()
      .regex(/^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/, 'must be an absolute path such as /mcp')
      .optional(),
    /** Host names besides loopback an open runtime's MCP endpoint answers (DNS-rebinding guard). */
    allowed_hosts: z.array(z.string().min(1)).optional(),
    /**
     * OAuth-protected MCP: unauthenticated clients are sent to these authorization servers to
     * sign in (RFC 9728 metadata). Their access tokens are verified as JWTs (JWKS or keys).
     */
    oauth: z
      .object({
        authorization_servers: z.array(z.url()).min(1),
        /** The public URL of the MCP endpoint; derived from each request when absent. */
        resource: z.url().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const runtimeOptionsSchema = z
  .object({
    id: z.string().trim().min(1).max(128).optional(),
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    version: z.string().trim().min(1).max(64).optional(),
    agents: z.array(component).optional(),
    teams: z.array(component).optional(),
    workflows: z.array(component).optional(),
    knowledge: z.array(component).optional(),
    db: db.optional(),
    authorization: z.boolean().optional(),
    authorization_config: authorizationConfigSchema.optional(),
    mcp_server: z.union([z.boolean(), mcpServerConfigSchema]).optional(),
    /** The model of components that have none of their own; defaults to one from the environment. */
    model: z
      .custom<Model>((v) => typeof v === 'object' && v !== null && typeof (v as Model).stream === 'function', {
        message: 'must be a Model (for example openai({ model: "gpt-4o-mini" }))',
      })
      .optional(),
    /** Limits on runs, tokens and cost per principal, tenant or agent (budgets/); more come through /budgets. */
    budgets: z.array(budgetDefinitionSchema).max(1000).optional(),
    /** Largest accepted request body in bytes; defaults to MAX_REQUEST_BODY_BYTES or 10 MiB. */
    max_body_bytes: z.number().int().positive().optional(),
    /** Proxies (addresses or CIDRs) whose X-Forwarded-For names the client; defaults to TRUSTED_PROXIES. */
    trusted_proxies: z.array(z.string().min(1)).optional(),
    /** The one bound on what shutdown waits for, in seconds; defaults to SHUTDOWN_TIMEOUT_SECONDS or 10. */
    shutdown_timeout_seconds: z.number().positive().max(3600).optional(),
    /** The environment to read settings from; defaults to `process.env`. */
    // A custom check rather than z.record: process.env is not a plain object, and passing it
    // (or a copy) is the obvious thing to do.
    env: z
      .custom<Environment>(
        (value) => typeof value === 'object' && value !== null && Object.values(value).every((v) => v === undefined || typeof v === 'string'),
        { message: 'env must map variable names to strings' },
      )
      .optional(),
  })
  .strict();

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

/** Options of `new Runtime(...)`. */
export interface RuntimeOptions {
  id?: string;
  name?: string;
  description?: string;
  version?: string;
  agents?: HostedComponent[];
  teams?: HostedComponent[];
  workflows?: HostedComponent[];
  knowledge?: KnowledgeComponent[];
  db?: Db;
  authorization?: boolean;
  authorization_config?: AuthorizationConfig;
  mcp_server?: boolean | McpServerConfig;
  model?: Model;
  budgets?: BudgetDefinition[];
  max_body_bytes?: number;
  trusted_proxies?: string[];
  shutdown_timeout_seconds?: number;
  env?: Environment;
}

/** Formats zod issues as `path: message` lines for a construction error. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
      return `${path || '(options)'}: ${issue.message}`;
    })
    .join('; ');
}
