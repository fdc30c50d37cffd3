/**
 * @module model/tool-media
 * Images and sounds in tool results, as the provider adapters need them: the text that stands
 * for one where a provider cannot carry it, and a tool result's text with those descriptions
 * added (what a text-only provider sends, what run events and traces keep).
 */
import type { ChatMessage, ToolMedia } from './model.js';

/** The decoded size of base64 data, in bytes. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** `[image image/png, 95 bytes]`: what stands for a media part a provider cannot take. */
export function describeMedia(media: ToolMedia): string {
  return `[${media.type} ${media.mimeType}, ${base64Bytes(media.data)} bytes]`;
}

/** A tool result's text, followed by a description of each of its media parts. */
export function toolResultText(content: string, media: readonly ToolMedia[] | undefined): string {
  if (!media?.length) return content;
  return [...(content === '' ? [] : [content]), ...media.map(describeMedia)].join('\n');
}

/** The same conversation with each media part's data left out (for traces: no base64 kept twice). */
export function withoutMediaData(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role !== 'tool' || !m.media?.length) return m;
    const { media, ...rest } = m;
    return { ...rest, content: toolResultText(m.content, media) };
  });
}
