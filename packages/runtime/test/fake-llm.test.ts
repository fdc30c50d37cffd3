/**
 * The parts of the fake LLM that only real coding clients use (the Responses API for Codex, the
 * `system` turns Claude Code sends): no runtime provider exercises them, so they are pinned here,
 * where a regression shows without those clients installed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { parseSse } from './support/sse.js';

let fake: FakeLlm;
beforeEach(async () => {
  fake = await startFakeLlm();
});
afterEach(async () => {
  await fake.close();
});

const isDelta = (e: { event: string }) => e.event === 'response.function_call_arguments.delta';

const post = (path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('Responses API', () => {
  const auth = { authorization: 'Bearer test-key' };
  const tools = [
    { type: 'function', name: 'shell', parameters: { type: 'object', properties: {} } },
    { type: 'namespace', name: 'mcp__docs', description: 'Docs', tools: [{ type: 'function', name: 'search', parameters: { type: 'object', properties: {} } }] },
  ];

  it('streams a namespaced function call as the API does: announced, argument deltas, done, completed', async () => {
    fake.setBehaviour({ reply: (c) => (c.toolNames.includes('mcp__docs.search') ? { kind: 'tool-call', name: 'mcp__docs.search', arguments: { query: 'install steps' } } : undefined) });
    const res = await post('/v1/responses', { model: 'm', stream: true, tools, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'find it' }] }] }, auth);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await res.text());
    expect(events.filter((e) => !isDelta(e)).map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.slice(3, -3).every(isDelta)).toBe(true);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter(isDelta).map((e) => e.data.delta as string);
    expect(deltas.length).toBeGreaterThan(1);
    const call = { type: 'function_call', name: 'search', namespace: 'mcp__docs', arguments: deltas.join(''), call_id: expect.any(String) };
    expect(JSON.parse(deltas.join(''))).toEqual({ query: 'install steps' });
    expect(events.at(-1)!.data.response).toMatchObject({ status: 'completed', output: [call], usage: { input_tokens: 12, output_tokens: 5 } });
    expect(fake.requests[0]!.conversation).toMatchObject({ wire: 'responses', lastUserMessage: 'find it', toolNames: ['shell', 'mcp__docs.search'], toolResults: [] });
  });

  it('reads function call outputs back, and answers a message when not streaming', async () => {
    const input = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'find it' }] },
      { type: 'function_call', name: 'search', namespace: 'mcp__docs', call_id: 'call_1', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Step 1: npm install' },
    ];
    const res = await post('/v1/responses', { model: 'm', tools, input }, auth);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'You said: find it' }] }],
    });
    expect(fake.requests[0]!.conversation.toolResults).toEqual(['Step 1: npm install']);
  });

  it('refuses what the API refuses: no key (401), an output for a call never made (400)', async () => {
    const noKey = await post('/v1/responses', { model: 'm', input: 'hi' }, {});
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ error: { message: expect.stringContaining('API key') } });
    const orphan = await post('/v1/responses', { model: 'm', input: [{ type: 'function_call_output', call_id: 'call_9', output: 'x' }] }, auth);
    expect(orphan.status).toBe(400);
    expect(await orphan.json()).toMatchObject({ error: { message: 'No tool call found for function call output with call_id call_9.' } });
  });
});

describe('Anthropic system turns', () => {
  const body = { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }, { role: 'system', content: [{ type: 'text', text: 'context' }] }] };
  const headers = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };

  it('are accepted from Claude Code (its beta header) and refused from anyone else', async () => {
    const claudeCode = await post('/v1/messages', body, { ...headers, 'anthropic-beta': 'claude-code-20250219,effort-2025-11-24' });
    expect(claudeCode.status).toBe(200);
    const other = await post('/v1/messages', body, headers);
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: { type: 'invalid_request_error', message: "messages.1.role: Input should be 'user' or 'assistant'" } });
  });
});
