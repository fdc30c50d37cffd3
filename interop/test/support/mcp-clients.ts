/**
 * The real MCP clients `svc connect` configures (and the MCP Inspector), as installed from npm
 * by interop/package.json (into interop/node_modules, which resolution from here finds first),
 * plus the environment and config that keep each one offline: its model is a loopback fake, and
 * everything that would phone home is switched off.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FakeConversation, FakeReply } from '../../../packages/runtime/test/support/fake-llm.js';

export interface InstalledClient {
  /** The executable, or undefined when the package is not installed. */
  path: string | undefined;
  /** Locally a missing client skips its tests; under CI=true it fails them instead. */
  skip: boolean;
  /** The executable, or a failure saying what to install. */
  require(): string;
}

const resolvePackage = createRequire(import.meta.url);

function installed(pkg: string, bin: string): InstalledClient {
  let path: string | undefined;
  try {
    const manifest = resolvePackage.resolve(`${pkg}/package.json`);
    const bins = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin ?? {};
    if (bins[bin] !== undefined) path = join(dirname(manifest), bins[bin]);
  } catch {
    path = undefined;
  }
  return {
    path,
    skip: path === undefined && process.env.CI !== 'true',
    require() {
      if (path === undefined) throw new Error(`${bin} is missing: run npm run test:interop, or npm install --prefix interop (interop/package.json pins ${pkg})`);
      return path;
    },
  };
}

export const claudeCode = installed('@anthropic-ai/claude-code', 'claude');
export const codex = installed('@openai/codex', 'codex');
export const inspector = installed('@modelcontextprotocol/inspector-cli', 'mcp-inspector-cli');

/**
 * Claude Code talking to a loopback Anthropic endpoint, with every side channel off (telemetry,
 * error reports, the auto-updater). Tool search is off so MCP tools arrive in `tools` with their
 * schemas, rather than as names the model must first look up with ToolSearch.
 */
export function claudeEnv(anthropicUrl: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: anthropicUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ENABLE_TOOL_SEARCH: 'false',
  };
}

export const CODEX_KEY_ENV = 'SVC_TEST_MODEL_KEY';

/**
 * A user's Codex config before `svc connect` adds its table: the model is a provider on the
 * loopback fake (Responses API, no retries so a broken answer fails fast). Analytics and plugins
 * are off because they reach ab.chatgpt.com, github.com and chatgpt.com (seen with strace on
 * 0.169.0); nothing else in `codex exec` left loopback.
 */
export function codexConfig(responsesBaseUrl: string): string {
  return [
    'model = "fake-model"',
    'model_provider = "fake"',
    'approval_policy = "never"',
    'sandbox_mode = "read-only"',
    '',
    '[model_providers.fake]',
    'name = "Loopback fake"',
    `base_url = "${responsesBaseUrl}"`,
    'wire_api = "responses"',
    `env_key = "${CODEX_KEY_ENV}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    '',
  ].join('\n');
}

/**
 * A model that calls `tool` once with `args` and then says `finalText`. Requests that do not
 * offer the tool are the clients' side requests (titles, summaries): they get a plain answer.
 */
export function callOnce(tool: string, args: Record<string, unknown>, finalText: string): (c: FakeConversation) => FakeReply {
  return (conversation) => {
    if (!conversation.toolNames.includes(tool)) return { kind: 'text', text: 'OK.' };
    if (conversation.toolResults.length === 0) return { kind: 'tool-call', name: tool, arguments: args };
    return { kind: 'text', text: finalText };
  };
}
