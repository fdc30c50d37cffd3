/**
 * Try a search as an agent would: the query, a search type the base supports, filters (JSON:
 * equalities or the filter expressions) and a limit. Hits show their scores and text; document
 * text is untrusted and is only ever shown as text.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ErrorText } from '../../components/error-text';
import { searchTypes, type KnowledgeConfig } from './base-summary';

type Hit = components['schemas']['KnowledgeSearchHit'];
type SearchType = NonNullable<components['schemas']['KnowledgeSearchRequest']['search_type']>;

interface Props {
  knowledgeId: string | undefined;
  config: KnowledgeConfig | undefined;
}

function parseFilters(text: string): Record<string, unknown> | Record<string, unknown>[] | undefined {
  if (!text.trim()) return undefined;
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error('Filters must be a JSON object or a list of expressions');
  return value as Record<string, unknown> | Record<string, unknown>[];
}

export function SearchPlayground({ knowledgeId, config }: Props) {
  const types = searchTypes(config) as SearchType[];
  const [query, setQuery] = useState('');
  const [type, setType] = useState<SearchType | ''>('');
  const [filters, setFilters] = useState('');
  const [limit, setLimit] = useState(5);
  const [hits, setHits] = useState<Hit[]>();
  const [took, setTook] = useState<number>();
  const [error, setError] = useState<string>();

  const search = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const parsed = parseFilters(filters);
      const body = {
        query,
        ...(knowledgeId ? { knowledge_id: knowledgeId } : {}),
        ...(type ? { search_type: type } : {}),
        ...(parsed ? { filters: parsed } : {}),
        max_results: limit,
      };
      const result = await unwrap(api.POST('/knowledge/search', { body }));
      setHits(result.data);
      setTook(result.meta.search_time_ms);
    } catch (failure) {
      setHits(undefined);
      setError(messageOf(failure));
    }
  };

  return (
    <section aria-labelledby="search-heading">
      <h2 id="search-heading">Search playground</h2>
      <form onSubmit={search}>
        <div class="field">
          <label for="search-query">Query</label>
          <input id="search-query" value={query} required onInput={(e) => setQuery(e.currentTarget.value)} />
        </div>
        <div class="row">
          <div class="field">
            <label for="search-type">Search type</label>
            <select id="search-type" value={type} onChange={(e) => setType(e.currentTarget.value as SearchType | '')}>
              <option value="">Default</option>
              {types.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="search-limit">Limit</label>
            <input id="search-limit" type="number" min={1} max={1000} value={limit} onInput={(e) => setLimit(Number(e.currentTarget.value) || 1)} />
          </div>
        </div>
        <div class="field">
          <label for="search-filters">Filters (JSON)</label>
          <textarea
            id="search-filters"
            class="mono"
            placeholder='{"name": "garden-guide.md"}'
            value={filters}
            onInput={(e) => setFilters(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorText message={error} />
      {hits ? (
        <div aria-live="polite">
          <p class="muted">
            {hits.length} {hits.length === 1 ? "hit" : "hits"}{took === undefined ? '' : ` in ${took} ms`}
          </p>
          <ol class="hits">
            {hits.map((hit) => (
              <li key={hit.id} class="card" data-testid="hit">
                <div class="row">
                  <strong>{hit.name ?? hit.content_id}</strong>
                  <span class="badge" data-testid="hit-score">
                    score {hit.score.toFixed(3)}
                  </span>
                </div>
                <pre class="hit-text">{hit.content}</pre>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </section>
  );
}
