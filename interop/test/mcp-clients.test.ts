/**
 * Interop with the REAL clients: `svc connect` writes their config, then Claude Code, Codex and
 * the MCP Inspector (pinned npm releases) call the runtime's run_agent tool. Their own model is
 * a loopback fake that calls the tool and records what comes back, so the tests check what the
 * client's model is actually shown, which is not always what the server put in `content`:
 * both clients pass only `structuredContent` on when a result has it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, openai } from '@svc/runtime';
import { startFakeLlm, type FakeLlm } from '../../packages/runtime/test/support/fake-llm.js';
import { ensureBuilt, jsonOf, runCli, runProgram, sandbox, type Sandbox } from '../../packages/cli/test/support/cli.js';
import { callOnce, claudeCode, claudeEnv, codex, CODEX_KEY_ENV, codexConfig, inspector } from './support/mcp-clients.js';
import { startSqliteRuntime, type TestRuntime } from '../../packages/cli/test/support/runtime.js';

const KEY = 'test-admin-key';
const SERVER = 'interop-runtime';
/** What the hosted agent answers: distinctive, so finding it proves it travelled all the way. */
const ANSWER = 'The hosted agent says: TANGERINE-7731.';
const RUN_ARGS = { agent_id: 'oracle', message: 'What is the secret word?' };
const FINAL = 'Relayed the agent answer.';
const CLIENT_TIMEOUT = 30_000;

let rt: TestRuntime;
let agentModel: FakeLlm;
let model: FakeLlm;
let box: Sandbox;

beforeAll(async () => {
  await ensureBuilt();
  agentModel = await startFakeLlm({ answer: () => ANSWER });
  rt = await startSqliteRuntime({
    name: 'Interop Runtime',
    mcp_server: true,
    env: { OS_SECURITY_KEY: KEY },
    agents: [new Agent({ id: 'oracle', name: 'Oracle', model: openai({ baseURL: `${agentModel.url}/v1`, apiKey: 'test-key', model: 'fake-model' }) })],
  });
});
afterAll(async () => {
  await rt?.stop();
  await agentModel?.close();
});
beforeEach(async () => {
  box = sandbox();
  model = await startFakeLlm();
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

async function connect(client: string): Promise<void> {
  const r = await runCli(['connect', '--url', rt.url, '--clients', client, '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(jsonOf(r)).toMatchObject({ server_name: SERVER, results: [{ client, status: 'connected' }] });
}

/** The tool results the client sent its model, from the request that followed the tool call. */
function toolResultsSeenByModel(): string[] {
  const followUp = model.requests.find((request) => request.conversation.toolResults.length > 0);
  expect(followUp, 'the client never sent a tool result back to its model').toBeDefined();
  return followUp!.conversation.toolResults;
}

describe.skipIf(claudeCode.skip)('Claude Code', () => {
  const TOOL = `mcp__${SERVER}__run_agent`;

  it('lists the connected server, calls run_agent, and its model sees the agent answer', { timeout: 2 * CLIENT_TIMEOUT }, async () => {
    const claude = claudeCode.require();
    writeFileSync(join(box.home, '.claude.json'), '{}');
    await connect('terminal-agent');
    const env = claudeEnv(model.url);

    const listed = await runProgram(claude, ['mcp', 'list'], { ...box, env, timeoutMs: CLIENT_TIMEOUT });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${SERVER}: ${rt.url}/mcp \\(HTTP\\) - .*Connected`));

    model.setBehaviour({ reply: callOnce(TOOL, RUN_ARGS, FINAL) });
    const agentCalls = agentModel.requests.length;
    const run = await runProgram(claude, ['-p', 'Ask the oracle agent for the secret word.', '--allowedTools', TOOL], { ...box, env, timeoutMs: CLIENT_TIMEOUT });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(FINAL);
    expect(model.requests.every((request) => request.wire === 'anthropic')).toBe(true);
    expect(model.requests[0]!.conversation.toolNames).toContain(TOOL);
    // The call reached the runtime and the agent answered: what is left is what the model got.
    expect(agentModel.requests.length).toBeGreaterThan(agentCalls);
    expect(toolResultsSeenByModel()).toEqual([expect.stringContaining(ANSWER)]);
  });
});

describe.skipIf(codex.skip)('Codex', () => {
  // Codex offers each MCP server as a Responses API namespace tool (`-` becomes `_`), and the
  // model calls the function inside it; the fake writes that as `<namespace>.<function>`.
  const TOOL = `mcp__${SERVER.replaceAll('-', '_')}.run_agent`;

  it('lists the server, calls run_agent from codex exec, and its model sees the agent answer', { timeout: 2 * CLIENT_TIMEOUT }, async () => {
    const bin = codex.require();
    const codexHome = join(box.home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), codexConfig(`${model.url}/v1`));
    await connect('cli-agent');
    // svc writes ~/.codex while Codex reads $CODEX_HOME when it is set: both name one directory.
    const env = { CODEX_HOME: codexHome, [CODEX_KEY_ENV]: 'test-key' };

    const listed = await runProgram(process.execPath, [bin, 'mcp', 'list'], { ...box, env, timeoutMs: CLIENT_TIMEOUT });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${SERVER}\\s+${rt.url}/mcp\\s.*enabled\\s+Bearer token`));

    model.setBehaviour({ reply: callOnce(TOOL, RUN_ARGS, FINAL) });
    const agentCalls = agentModel.requests.length;
    const args = [
      bin,
      'exec',
      '--skip-git-repo-check',
      // run_agent is not read-only (it runs an agent), so Codex asks before calling it, and
      // `exec` cannot ask: approve exactly this tool.
      '-c',
      `mcp_servers.${SERVER}.tools.run_agent.approval_mode="approve"`,
      'Ask the oracle agent for the secret word.',
    ];
    const run = await runProgram(process.execPath, args, { ...box, env, timeoutMs: CLIENT_TIMEOUT });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(FINAL);
    expect(model.requests.every((request) => request.wire === 'responses')).toBe(true);
    expect(model.requests[0]!.conversation.toolNames).toContain(TOOL);
    expect(agentModel.requests.length).toBeGreaterThan(agentCalls);
    expect(toolResultsSeenByModel()).toEqual([expect.stringContaining(ANSWER)]);
  });
});

/**
 * The Inspector 1.0.3 CLI finds its own package.json relative to the working directory
 * (modelcontextprotocol/inspector#1334, closed as v1-deprecated), so it runs from its build dir.
 */
function inspect(args: string[], bearer: string) {
  const bin = inspector.require();
  const target = ['--cli', `${rt.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${bearer}`];
  return runProgram(process.execPath, [bin, ...target, ...args], { cwd: dirname(bin), home: box.home, timeoutMs: CLIENT_TIMEOUT });
}

describe.skipIf(inspector.skip)('MCP Inspector CLI', () => {
  let token: string | undefined;

  beforeEach(async () => {
    if (token) return;
    const minted = await runCli(['tokens', 'create', 'inspector', '--url', rt.url, '--json'], { ...box, env: { SVC_ADMIN_TOKEN: KEY } });
    if (minted.code !== 0) throw new Error(`svc tokens create failed: ${minted.stdout}${minted.stderr}`);
    token = jsonOf(minted).token as string;
  });

  it('tools/list shows the twelve tools', async () => {
    const r = await inspect(['--method', 'tools/list'], token!);
    expect(r.code, r.stderr).toBe(0);
    const names = (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(['add_memory', 'cancel_run', 'continue_run', 'delete_memory', 'get_agentos_config', 'get_memories', 'get_session_runs', 'get_sessions', 'run_agent', 'run_team', 'run_workflow', 'update_memory']);
  });

  it('tools/call run_agent answers with the agent answer in content and structuredContent', async () => {
    const r = await inspect(['--method', 'tools/call', '--tool-name', 'run_agent', '--tool-arg', `agent_id=${RUN_ARGS.agent_id}`, '--tool-arg', `message=${RUN_ARGS.message}`], token!);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { content: unknown; structuredContent: unknown; isError?: boolean };
    expect(result.isError ?? false).toBe(false);
    expect(result.content).toEqual([{ type: 'text', text: ANSWER }]);
    expect(result.structuredContent).toMatchObject({ run_id: expect.any(String), session_id: expect.any(String), status: 'COMPLETED', content: ANSWER });
  });

  it('a bad token fails with the runtime authentication error', async () => {
    const r = await inspect(['--method', 'tools/list'], 'svc_pat_not-a-real-token');
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    // The Inspector prints the body of the 401: the runtime's error envelope.
    expect(r.stderr).toContain('"error_code":"UNAUTHENTICATED"');
  });
});
