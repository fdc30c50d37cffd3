/**
 * @module providers/anthropic/conversation
 * Turns the provider-neutral conversation into Anthropic's shape. Anthropic has no system or
 * tool roles: system messages become the top-level `system` text, and tool results become
 * `tool_result` blocks of a user turn (with image blocks for the images a tool returned). Consecutive turns of one role are merged, so the parallel
 * results of one assistant turn land in the single user turn that must follow it.
 */
import type { ChatMessage, ToolMedia } from '../../model/model.js';
import { toolResultText } from '../../model/tool-media.js';
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
        add('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: toolResultContent(message.content, message.media) }]);
        break;
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages };
}

/** The image types Anthropic accepts; other media (audio included) go as their description. */
const ANTHROPIC_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * A tool_result's content: its text alone when it has no media Anthropic takes (the string form,
 * as before), else text and image blocks.
 */
function toolResultContent(content: string, media: readonly ToolMedia[] | undefined): string | JsonRecord[] {
  const images = (media ?? []).filter((m) => m.type === 'image' && ANTHROPIC_IMAGES.has(m.mimeType));
  const described = toolResultText(content, (media ?? []).filter((m) => !images.includes(m)));
  if (images.length === 0) return described;
  return [...textBlocks(described), ...images.map((m) => ({ type: 'image', source: { type: 'base64', media_type: m.mimeType, data: m.data } }))];
}

function textBlocks(text: string): JsonRecord[] {
  return text === '' ? [] : [{ type: 'text', text }];
}
