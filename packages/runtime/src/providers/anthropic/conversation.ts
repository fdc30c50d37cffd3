/**
 * @module providers/anthropic/conversation
 * Turns the provider-neutral conversation into Anthropic's shape. Anthropic has no system or
 * tool roles: system messages become the top-level `system` text, and tool results become
 * `tool_result` blocks of a user turn. Consecutive turns of one role are merged, so the parallel
 * results of one assistant turn land in the single user turn that must follow it.
 */
import type { ChatMessage } from '../../model/model.js';
import type { JsonRecord } from '../json-fields.js';
import { argumentsObject } from '../tool-arguments.js';

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: JsonRecord[];
}

export function toAnthropicMessages(conversation: readonly ChatMessage[]): { system: string | undefined; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const add = (role: AnthropicMessage['role'], blocks: JsonRecord[]) => {
    // Anthropic rejects empty text blocks and empty turns; an empty message carries nothing anyway.
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };

  for (const message of conversation) {
    switch (message.role) {
      case 'system':
        if (message.content !== '') system.push(message.content);
        break;
      case 'user':
        add('user', textBlocks(message.content));
        break;
      case 'assistant':
        add('assistant', [
          ...textBlocks(message.content),
          ...(message.toolCalls ?? []).map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call.arguments) })),
        ]);
        break;
      case 'tool':
        add('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }]);
        break;
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages };
}

function textBlocks(text: string): JsonRecord[] {
  return text === '' ? [] : [{ type: 'text', text }];
}
