/**
 * @module net/sse
 * A small Server-Sent Events parser (the subset of the WHATWG algorithm that streaming APIs use):
 * lines end in `\n`, `\r\n` or `\r` (possibly split across chunks), `:` starts a comment,
 * repeated `data:` lines join with `\n`, and a blank line dispatches the event.
 */
import { textChunks, type ByteSource } from './byte-chunks.js';

export interface SseEvent {
  /** The `event:` field; absent means the default `message`. */
  event?: string;
  data: string;
  id?: string;
}

export async function* parseSse(source: ByteSource): AsyncGenerator<SseEvent> {
  let buffer = '';
  let event: string | undefined;
  let id: string | undefined;
  let data: string[] = [];

  const dispatch = (): SseEvent | undefined => {
    const ready = data.length > 0 ? { data: data.join('\n'), ...(event === undefined ? {} : { event }), ...(id === undefined ? {} : { id }) } : undefined;
    event = undefined;
    data = [];
    return ready;
  };

  const line = (text: string): SseEvent | undefined => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
    // `retry` and unknown fields are ignored: we never reconnect a model stream.
    return undefined;
  };

  for await (const text of textChunks(source)) {
    buffer += text;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      // A `\r` at the very end may be the first half of a `\r\n` split across chunks: wait.
      if (ch === '\r' && i === buffer.length - 1) break;
      const ready = line(buffer.slice(start, i));
      if (ch === '\r' && buffer[i + 1] === '\n') i++;
      start = i + 1;
      if (ready) yield ready;
    }
    buffer = buffer.slice(start);
  }
  // The stream ended. A trailing `\r` is a complete line end; an unterminated last line and an
  // undispatched event are kept rather than dropped, since some servers omit the final blank line.
  if (buffer.endsWith('\r')) buffer = buffer.slice(0, -1);
  if (buffer !== '') line(buffer);
  const last = dispatch();
  if (last) yield last;
}
