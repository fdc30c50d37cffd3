/**
 * The Anthropic adapter reading recorded wire answers (test/fixtures/wire/anthropic) over
 * loopback HTTP: input counted as the whole prompt (uncached + cache reads + cache writes), the
 * cache counts apart, and message_delta's cumulative output count taken once, not added up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError, type ModelRequest, type StreamPart } from '../../model/model.js';
import { startWireReplay, type WireReplay } from '../../../test/support/wire-replay.js';
import { AnthropicMessagesModel } from './messages.js';

const request: ModelRequest = { messages: [{ role: 'user', content: 'Weather in Paris?' }] };

async function parts(stream: AsyncIterable<StreamPart>, into: StreamPart[] = []): Promise<StreamPart[]> {
  for await (const part of stream) into.push(part);
  return into;
}

describe('Anthropic messages usage, from recorded answers', () => {
  let replay: WireReplay;
  beforeAll(async () => {
    replay = await startWireReplay();
  });
  afterAll(() => replay.close());
  const model = () => new AnthropicMessagesModel({ model: 'claude-sonnet-4-20250514', apiKey: 'sk-ant-test', baseURL: replay.url, maxRetries: 0 });

  it('streams text and a tool call, reading cache reads and the cumulative counts of message_delta', async () => {
    replay.serve('anthropic/messages-stream-tool-use.sse');
    expect(await parts(model().stream(request))).toEqual([
      { type: 'text-delta', text: "I'll look up the weather" },
      { type: 'text-delta', text: ' in Paris.' },
      { type: 'tool-call', call: { id: 'toolu_01WrUsageWeather0000001', name: 'get_weather', arguments: '{"city": "Paris"}' } },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 2035, outputTokens: 58, totalTokens: 2093, cachedInputTokens: 2014, cacheWriteInputTokens: 0 } },
    ]);
  });

  it('keeps message_start input counts when message_delta reports only the output', async () => {
    replay.serve('anthropic/messages-stream-text.sse');
    const got = await parts(model().stream(request));
    expect(got.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 1548, outputTokens: 15, totalTokens: 1563, cachedInputTokens: 0, cacheWriteInputTokens: 1536 } });
  });

  it('ends with the provider error, and no finish, when the stream fails after message_start', async () => {
    replay.serve('anthropic/messages-stream-overloaded.sse');
    const got: StreamPart[] = [];
    const error = await parts(model().stream(request), got).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ModelError.isInstance(error) && { code: error.code, status: error.status }).toEqual({ code: 'MODEL_HTTP_ERROR', status: 529 });
    expect(got).toEqual([{ type: 'text-delta', text: 'Let me' }]);
  });

  it('reads the usage of an answer without streaming', async () => {
    replay.serve('anthropic/messages.json');
    expect(await model().generate(request)).toEqual({
      text: "I'll check the weather in Paris.",
      toolCalls: [{ id: 'toolu_01WrUsageJsonWeather0001', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 1830, outputTokens: 66, totalTokens: 1896, cachedInputTokens: 1800, cacheWriteInputTokens: 0 },
    });
  });
});
