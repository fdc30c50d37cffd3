/**
 * Server-sent events with their ids, read from a response as they come: for tests that drop a
 * stream mid-way and resume it with `Last-Event-ID`.
 */
type Json = Record<string, any>;

export interface IdentifiedEvent {
  id: string | undefined;
  event: string;
  data: Json;
}

function parseBlock(block: string): IdentifiedEvent | undefined {
  const lines = block.split('\n').filter((l) => l && !l.startsWith(':'));
  if (lines.length === 0) return undefined;
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
  const data = lines
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trimStart())
    .join('\n');
  return { id: field('id'), event: field('event') ?? 'message', data: JSON.parse(data) as Json };
}

/**
 * Reads events until `stop` says so (then aborts through `controller`) or the stream ends.
 */
export async function readEvents(response: Response, stop: (events: IdentifiedEvent[]) => boolean = () => false, controller?: AbortController): Promise<IdentifiedEvent[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: IdentifiedEvent[] = [];
  let text = '';
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const event = parseBlock(text.slice(0, end));
      text = text.slice(end + 2);
      if (!event) continue;
      events.push(event);
      if (stop(events)) {
        controller?.abort();
        await reader.cancel().catch(() => undefined);
        return events;
      }
    }
  }
  return events;
}

/** The text of the RunContent (or TeamRunContent) events, joined. */
export function textOf(events: readonly IdentifiedEvent[]): string {
  return events
    .filter((e) => e.event === 'RunContent' || e.event === 'TeamRunContent')
    .map((e) => e.data.content as string)
    .join('');
}
