/** Parses a text/event-stream body into events (the JSON `data` of each, with its name). */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

export function parseSse(body: string): SseEvent[] {
  return body
    .split(/\n\n/)
    .map((block) => block.split('\n').filter((l) => l && !l.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim() ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** Reads an SSE response until `stop` says so, then aborts the connection. */
export async function readUntil(
  response: Response,
  controller: AbortController,
  stop: (events: SseEvent[]) => boolean,
): Promise<SseEvent[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
    const events = parseSse(complete);
    if (stop(events)) {
      controller.abort();
      return events;
    }
  }
  return parseSse(text);
}
