/**
 * The starter's entry point: a runtime with two agents, served on PORT/HOST until SIGINT or
 * SIGTERM, then drained and closed. Edit the agents; the rest is deployment plumbing that every
 * platform in this family of starters relies on (a /health route, env-only configuration and a
 * clean exit on SIGTERM, which is how containers are stopped).
 */
import { existsSync } from 'node:fs';
import { Agent, Runtime, openDb, readSettings, serveUntilStopped } from '@svc/runtime';

/** Comma-separated list; empty entries are dropped so a trailing comma is harmless. */
function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function createRuntime(): Runtime {
  // PORT, HOST and DATABASE_URL (a SQLite path or postgres:// URL) are parsed by the runtime's
  // own reader, so this app and the runtime can never disagree about them.
  const settings = readSettings(process.env);
  return new Runtime({
    id: 'starter',
    name: 'Starter',
    description: 'A runtime created from a svc starter: replace these agents with your own',
    agents: [
      new Agent({
        id: 'assistant',
        name: 'Assistant',
        description: 'A general assistant',
        instructions: 'You are a helpful assistant. Answer briefly and say when you are unsure.',
      }),
      new Agent({
        id: 'summarizer',
        name: 'Summarizer',
        description: 'Summarizes the text it is given',
        instructions: 'Summarize the user message in at most three bullet points.',
      }),
    ],
    db: openDb(settings.databaseUrl),
    // The agents use the model the environment names (OPENAI_*, ANTHROPIC_* or OLLAMA_*; see
    // example.env). Without one the runtime still serves, and runs fail with a message naming
    // the variables to set. Give an agent its own with `model: openai({ model: '...' })`.
    // `svc connect` talks to the MCP endpoint. Behind a public host name an open runtime's MCP
    // endpoint only answers the names listed here (a DNS-rebinding guard).
    mcp_server: { allowed_hosts: list(process.env.MCP_ALLOWED_HOSTS) },
  });
}

// Local runs read .env (seeded from example.env by `svc create`). Variables already in the
// environment win, so platform settings are never overridden by a stray file.
if (existsSync('.env')) process.loadEnvFile('.env');
await serveUntilStopped(createRuntime);
