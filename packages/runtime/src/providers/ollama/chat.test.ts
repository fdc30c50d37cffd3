/**
 * The Ollama adapter reading recorded wire answers (test/fixtures/wire/ollama) over loopback
 * HTTP: the counts of the final `done` line, streamed or not, and no cache figures (Ollama
 * reports none, so none are made up).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest, StreamPart } from '../../model/model.js';
import { startWireReplay, type WireReplay } from '../../../test/support/wire-replay.js';
import { OllamaChatModel } from './chat.js';

const request: ModelRequest = { messages: [{ role: 'user', content: 'Why is the sky blue?' }] };

async function parts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

describe('Ollama chat usage, from recorded answers', () => {
  let replay: WireReplay;
  beforeAll(async () => {
    replay = await startWireReplay();
  });
  afterAll(() => replay.close());
  const model = () => new OllamaChatModel({ model: 'llama3.2', host: replay.url, maxRetries: 0 });

  it('reads prompt_eval_count and eval_count off the done line of a stream', async () => {
    replay.serve('ollama/chat-stream-text.ndjson');
    const got = await parts(model().stream(request));
    expect(got.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('')).toBe('The sky is blue because of Rayleigh scattering.');
    expect(got.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 26, outputTokens: 7, totalTokens: 33 } });
  });

  it('reports a streamed tool call, then the usage of the done line after it', async () => {
    replay.serve('ollama/chat-stream-tool-call.ndjson');
    const got = await parts(model().stream(request));
    expect(got).toHaveLength(2);
    expect(got[0]).toMatchObject({ type: 'tool-call', call: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect(got[1]).toEqual({ type: 'finish', reason: 'tool-calls', usage: { inputTokens: 168, outputTokens: 22, totalTokens: 190 } });
  });

  it('reads the usage of an answer without streaming', async () => {
    replay.serve('ollama/chat.json');
    const answer = await model().generate(request);
    expect(answer.finishReason).toBe('tool-calls');
    expect(answer.usage).toEqual({ inputTokens: 122, outputTokens: 33, totalTokens: 155 });
  });
});

describe('tool results with media on the Ollama wire', () => {
  let replay: WireReplay;
  beforeAll(async () => {
    replay = await startWireReplay();
  });
  afterAll(() => replay.close());

  it('sends a tool result’s images as the message’s base64 images and describes what Ollama cannot take', async () => {
    const png = Buffer.from('png-bytes').toString('base64');
    const wav = Buffer.from('wav-bytes!').toString('base64');
    replay.serve('ollama/chat-stream-text.ndjson');
    const model = new OllamaChatModel({ model: 'llava', host: replay.url, maxRetries: 0 });
    await parts(
      model.stream({
        messages: [
          { role: 'user', content: 'Look.' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'shot', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'a', name: 'shot', content: 'The screen:', media: [{ type: 'image', mimeType: 'image/png', data: png }, { type: 'audio', mimeType: 'audio/wav', data: wav }] },
        ],
      }),
    );
    const body = replay.requests.at(-1)?.body as { messages: unknown[] };
    expect(body.messages[2]).toEqual({ role: 'tool', content: 'The screen:\n[audio audio/wav, 10 bytes]', tool_name: 'shot', images: [png] });
  });
});
