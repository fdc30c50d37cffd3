import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../model/model.js';
import { toAnthropicMessages } from './conversation.js';

const png = Buffer.from('png-bytes').toString('base64');
const wav = Buffer.from('wav-bytes!').toString('base64');

describe('tool results with media, as Anthropic takes them', () => {
  it('puts images in the tool_result as image blocks, describes audio and other types, and keeps a plain result a string', () => {
    const conversation: ChatMessage[] = [
      { role: 'user', content: 'Look' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'shot', arguments: '{}' }, { id: 'b', name: 'note', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'a',
        name: 'shot',
        content: 'The screen:',
        media: [
          { type: 'image', mimeType: 'image/png', data: png },
          { type: 'audio', mimeType: 'audio/wav', data: wav },
          { type: 'image', mimeType: 'image/svg+xml', data: png },
        ],
      },
      { role: 'tool', toolCallId: 'b', name: 'note', content: 'ok' },
    ];
    expect(toAnthropicMessages(conversation).messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'a',
          content: [
            { type: 'text', text: 'The screen:\n[audio audio/wav, 10 bytes]\n[image image/svg+xml, 9 bytes]' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          ],
        },
        { type: 'tool_result', tool_use_id: 'b', content: 'ok' },
      ],
    });
  });
});
