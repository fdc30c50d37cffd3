/**
 * Citations under an answer: the passages the agent's knowledge searches returned in the same
 * turn, numbered as the model saw them so an answer's [n] can be followed. Passage text is
 * untrusted document content and is shown only as text.
 */
import type { Item } from './chat-state';
import { citationsOf, KNOWLEDGE_TOOL, queryOf, type Citation } from './citations';

export interface Search {
  key: string;
  query: string | undefined;
  citations: Citation[];
}

const SNIPPET = 240;

/** The finished knowledge searches between the user's message and the answer at `index`. */
export function turnSearches(items: Item[], index: number): Search[] {
  const searches: Search[] = [];
  for (let i = index - 1; i >= 0; i--) {
    const item = items[i];
    if (!item || item.type === 'user') break;
    if (item.type !== 'tool' || item.name !== KNOWLEDGE_TOOL || !item.done || item.failed || item.result === undefined) continue;
    const citations = citationsOf(item.result);
    if (citations.length > 0) searches.unshift({ key: item.key, query: queryOf(item.args), citations });
  }
  return searches;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET - 1)}…` : flat;
}

export function Sources({ searches }: { searches: Search[] }) {
  if (searches.length === 0) return null;
  return (
    <section class="sources" aria-label="Sources" data-testid="sources">
      {searches.map((search) => (
        <div key={search.key}>
          <h4>{searches.length > 1 && search.query ? `Sources for “${search.query}”` : 'Sources'}</h4>
          <ol>
            {search.citations.map((citation) => (
              <li key={citation.n} value={citation.n} data-testid="source">
                <strong>{citation.name ?? 'Untitled passage'}</strong>
                <span class="muted"> {snippet(citation.text)}</span>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </section>
  );
}
