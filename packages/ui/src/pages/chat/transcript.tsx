/**
 * The conversation: the user's messages as text, answers as sanitised Markdown, each tool call
 * with its arguments, then its result (or failure) once it finishes, and under an answer the
 * knowledge passages its turn searched. A live region announces new content to screen readers.
 */
import { Markdown } from '../../components/markdown';
import type { Item } from './chat-state';
import { Sources, turnSearches } from './sources';

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function ToolCall({ item }: { item: Extract<Item, { type: 'tool' }> }) {
  const state = !item.done ? 'running' : item.failed ? 'failed' : 'done';
  return (
    <li class="card tool-call" data-testid="tool-call" data-state={state}>
      <div class="row">
        <strong>Tool: {item.name}</strong>
        <span class={`badge ${state === 'running' ? 'processing' : state === 'failed' ? 'failed' : 'completed'}`}>{state}</span>
      </div>
      <details open={!item.done}>
        <summary>Arguments</summary>
        <pre>{pretty(item.args)}</pre>
      </details>
      {item.result !== undefined ? (
        <details>
          <summary>Result</summary>
          <pre>{item.result}</pre>
        </details>
      ) : null}
    </li>
  );
}

export function Transcript({ items }: { items: Item[] }) {
  return (
    <ol class="transcript" aria-live="polite" aria-label="Conversation">
      {items.map((item, index) => {
        if (item.type === 'tool') return <ToolCall key={item.key} item={item} />;
        if (item.type === 'notice')
          return (
            <li key={item.key} class={item.tone === 'error' ? 'error' : 'muted'} role={item.tone === 'error' ? 'alert' : undefined}>
              {item.text}
            </li>
          );
        return (
          <li key={item.key} class={`message ${item.type}`} data-testid={`message-${item.type}`}>
            <span class="who-said">{item.type === 'user' ? 'You' : 'Answer'}</span>
            {item.type === 'user' ? <p class="plain">{item.text}</p> : <Markdown text={item.text} />}
            {item.type === 'assistant' ? <Sources searches={turnSearches(items, index)} /> : null}
          </li>
        );
      })}
    </ol>
  );
}
