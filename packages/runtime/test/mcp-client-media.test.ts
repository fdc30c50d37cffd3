/**
 * Images an MCP tool returns reach the model as images: the real `server-everything` over stdio
 * (its `get-tiny-image` answers text, a PNG and text), and the loopback model server recording
 * the exact body each provider receives. Anthropic gets image blocks inside the `tool_result`;
 * OpenAI chat completions (text-only tool messages) gets the tool's text, then a user message of
 * `image_url` data URLs after the turn's tool messages; Ollama the tool message's `images`. Past the
 * size limit, a description. The image is kept in the session, so the next run of the session
 * sends it again; on SQLite and PostgreSQL.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import type { Model } from '../src/model/model.js';
import { mcpServer } from '../src/mcp-client/mcp-server.js';
import { AnthropicMessagesModel } from '../src/providers/anthropic/messages.js';
import { OllamaChatModel } from '../src/providers/ollama/chat.js';
import { OpenAIChatModel } from '../src/providers/openai/chat.js';
import { testDatabaseKinds } from './support/databases.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { call } from './support/http.js';
import { EVERYTHING_BIN, everythingStdio } from './support/mcp-servers.js';
import { startRuntime, type StartedRuntime } from './support/runtime.js';

type Json = Record<string, any>;

/** An agent whose one tool is server-everything's image tool. */
const imageAgent = (id: string, model: Model, maxMediaBytes?: number) =>
  new Agent({ id, model, tools: [mcpServer({ id: `everything-${id}`, ...everythingStdio(), include: ['get-tiny-image'], ...(maxMediaBytes === undefined ? {} : { maxMediaBytes }) })] });

/** The PNG the server sends, read from its own source. */
const IMAGE = /MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"/.exec(readFileSync(join(dirname(EVERYTHING_BIN), 'tools', 'get-tiny-image.js'), 'utf8'))![1]!;
const IMAGE_BYTES = Buffer.from(IMAGE, 'base64').length;
const TEXT = "Here's the image you requested:\nThe image above is the MCP logo.";

for (const kind of testDatabaseKinds) {
  describe.skipIf(!kind.available)(`an MCP tool's image on the wire of each provider (${kind.kind})`, () => {
    let fake: FakeLlm;
    let rt: StartedRuntime;

    beforeAll(async () => {
      fake = await startFakeLlm();
      rt = await startRuntime(kind, {
        agents: [
          imageAgent('openai', new OpenAIChatModel({ model: 'fake-model', apiKey: 'sk-test', baseURL: `${fake.url}/v1`, maxRetries: 0 })),
          imageAgent('anthropic', new AnthropicMessagesModel({ model: 'claude-test', apiKey: 'sk-ant-test', baseURL: `${fake.url}/`, maxRetries: 0 })),
          imageAgent('ollama', new OllamaChatModel({ model: 'llama-test', host: fake.url, maxRetries: 0 })),
          imageAgent('small', new OpenAIChatModel({ model: 'fake-model', apiKey: 'sk-test', baseURL: `${fake.url}/v1`, maxRetries: 0 }), 100),
        ],
      });
    }, 60_000);
    afterAll(async () => {
      await rt?.stop();
      await fake?.close();
    });

    /** Runs the agent once with the image tool called; the body of the model call after the tool's. */
    const runWithImage = async (agent: string, sessionId?: string): Promise<{ run: Json; body: Json }> => {
      const before = fake.requests.length;
      fake.script({ kind: 'tool-call', name: 'get-tiny-image', arguments: {} }, { kind: 'text', text: 'A logo.' });
      const run = (await call(rt.url, 'POST', `/agents/${agent}/runs`, { body: { message: 'Show the logo', stream: false, user_id: 'ann', ...(sessionId ? { session_id: sessionId } : {}) } })).body;
      expect(run.status).toBe('COMPLETED');
      expect(fake.requests.length).toBe(before + 2);
      return { run, body: fake.requests[before + 1]!.body as Json };
    };

    it('OpenAI chat completions: the tool message names the image, a user message after it carries it as a data URL', async () => {
      const { run, body } = await runWithImage('openai');
      const messages = body.messages as Json[];
      const callId = messages.at(-3)!.tool_calls[0].id as string;
      expect(messages.slice(-2)).toEqual([
        { role: 'tool', tool_call_id: callId, content: `${TEXT}\n[image image/png, ${IMAGE_BYTES} bytes]: in the next user message` },
        {
          role: 'user',
          content: [
            { type: 'text', text: `The images the get-tiny-image call (${callId}) returned:` },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE}` } },
          ],
        },
      ]);
      // The run's record describes the image rather than copying it.
      expect(run.tools[0].result).toBe(`${TEXT}\n[image image/png, ${IMAGE_BYTES} bytes]`);
    });

    it('Anthropic messages: the tool_result holds the text and an image block', async () => {
      const { body } = await runWithImage('anthropic');
      const messages = body.messages as Json[];
      const useId = messages.at(-2)!.content.find((b: Json) => b.type === 'tool_use').id as string;
      expect(messages.at(-1)).toEqual({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: useId,
            content: [
              { type: 'text', text: TEXT },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE } },
            ],
          },
        ],
      });
    });

    it('Ollama: the tool message carries the image as base64 `images`', async () => {
      const { body } = await runWithImage('ollama');
      expect((body.messages as Json[]).at(-1)).toEqual({ role: 'tool', content: TEXT, tool_name: 'get-tiny-image', images: [IMAGE] });
    });

    it('an image past the size limit is described, with the limit, and not sent', async () => {
      const { body } = await runWithImage('small');
      const messages = body.messages as Json[];
      expect(messages.at(-1)).toEqual({
        role: 'tool',
        tool_call_id: messages.at(-2)!.tool_calls[0].id,
        content: `Here's the image you requested:\n[image image/png, ${IMAGE_BYTES} bytes]: not shown, past the limit of 100 bytes of media a tool result may carry\nThe image above is the MCP logo.`,
      });
    });

    it('keeps the image in the session: the next run of the session sends it again', async () => {
      const first = await runWithImage('openai', 'media-session');
      expect(first.run.session_id).toBe('media-session');
      const before = fake.requests.length;
      fake.script({ kind: 'text', text: 'Still a logo.' });
      const again = (await call(rt.url, 'POST', '/agents/openai/runs', { body: { message: 'And now?', stream: false, user_id: 'ann', session_id: 'media-session' } })).body;
      expect(again.status).toBe('COMPLETED');
      const images = (fake.requests[before]!.body as Json).messages.filter((m: Json) => m.role === 'user' && Array.isArray(m.content));
      expect(images).toHaveLength(1);
      expect(images[0].content[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE}` } });
    });
  });
}
