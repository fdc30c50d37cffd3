/**
 * The OpenAI adapter reading recorded wire answers (test/fixtures/wire/openai) over loopback
 * HTTP: the usage it reports, streamed or not, is exactly what OpenAI sent, cached tokens too.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelRequest, StreamPart } from '../../model/model.js';
import { startWireReplay, type WireReplay } from '../../../test/support/wire-replay.js';
import { OpenAIChatModel, toOpenAIMessages } from './chat.js';

const request: ModelRequest = { messages: [{ role: 'user', content: 'What is new?' }] };

async function parts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

describe('OpenAI chat completions usage, from recorded answers', () => {
  let replay: WireReplay;
  beforeAll(async () => {
    replay = await startWireReplay();
  });
  afterAll(() => replay.close());
  beforeEach(() => {
    replay.requests.length = 0;
  });
  const model = () => new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: `${replay.url}/v1`, maxRetries: 0 });

  it('asks for usage when streaming and reads the usage chunk that follows finish_reason, cached tokens included', async () => {
    replay.serve('openai/chat-stream-text.sse');
    const got = await parts(model().stream(request));
    expect(replay.requests[0]).toMatchObject({ path: '/v1/chat/completions', body: { stream: true, stream_options: { include_usage: true } } });
    expect(got.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('')).toBe('The release adds streamed usage.');
    expect(got.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 2006, outputTokens: 6, totalTokens: 2012, cachedInputTokens: 1920 } });
    expect(got.filter((part) => part.type === 'finish')).toHaveLength(1);
  });

  it('reports a tool-call turn with its usage, a zero cache count kept as reported', async () => {
    replay.serve('openai/chat-stream-tool-call.sse');
    expect(await parts(model().stream(request))).toEqual([
      { type: 'tool-call', call: { id: 'call_Wr7uCall0000000000000001', name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 88, outputTokens: 17, totalTokens: 105, cachedInputTokens: 0 } },
    ]);
  });

  it('reads the usage of an answer without streaming', async () => {
    replay.serve('openai/chat.json');
    const answer = await model().generate(request);
    expect(replay.requests[0]?.body).toMatchObject({ stream: false });
    expect(replay.requests[0]?.body).not.toHaveProperty('stream_options');
    expect(answer).toEqual({
      text: 'Usage is reported with every answer.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 1530, outputTokens: 42, totalTokens: 1572, cachedInputTokens: 1408 },
    });
  });
});

describe('tool results with media on the chat completions wire', () => {
  it('keeps tool messages text and follows the turn’s tool messages with one user message of data URLs', () => {
    const png = Buffer.from('png-bytes').toString('base64');
    const wav = Buffer.from('wav-bytes!').toString('base64');
    expect(
      toOpenAIMessages([
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'shot', arguments: '{}' }, { id: 'b', name: 'clip', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'a', name: 'shot', content: 'The screen:', media: [{ type: 'image', mimeType: 'image/png', data: png }] },
        { role: 'tool', toolCallId: 'b', name: 'clip', content: '', media: [{ type: 'audio', mimeType: 'audio/wav', data: wav }] },
        { role: 'assistant', content: 'Seen.' },
      ]).slice(1),
    ).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'The screen:\n[image image/png, 9 bytes]: in the next user message' },
      { role: 'tool', tool_call_id: 'b', content: '[audio audio/wav, 10 bytes]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The images the shot call (a) returned:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
      { role: 'assistant', content: 'Seen.' },
    ]);
  });
});
