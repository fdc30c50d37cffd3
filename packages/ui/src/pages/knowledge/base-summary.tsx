/** What a base reads, how it chunks and how it searches, from `GET /knowledge/config`. */
import type { components } from '../../api/schema';

export type KnowledgeConfig = components['schemas']['KnowledgeConfigResponse'];

export function searchTypes(config: KnowledgeConfig | undefined): string[] {
  return [...new Set((config?.vector_dbs ?? []).flatMap((db) => db.search_types ?? []))];
}

export function BaseSummary({ config }: { config: KnowledgeConfig }) {
  const readers = Object.values(config.readers ?? {});
  const chunkers = Object.values(config.chunkers ?? {});
  return (
    <section aria-labelledby="base-heading" class="card">
      <h2 id="base-heading">This base</h2>
      <p>
        Search types: <strong data-testid="search-types">{searchTypes(config).join(', ') || 'none reported'}</strong>
        {' · '}
        {readers.length} readers · {chunkers.length} chunkers
      </p>
      <details>
        <summary>Readers and their chunkers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Reader</th>
              <th scope="col">What it reads</th>
              <th scope="col">Chunkers</th>
            </tr>
          </thead>
          <tbody>
            {readers.map((reader) => (
              <tr key={reader.id}>
                <td>
                  <code>{reader.id}</code>
                </td>
                <td>{reader.description ?? reader.name ?? ''}</td>
                <td>{(reader.chunkers ?? []).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      <details>
        <summary>Chunkers and their defaults</summary>
        <ul>
          {chunkers.map((chunker) => (
            <li key={chunker.key}>
              <code>{chunker.key}</code> {chunker.description ?? ''} <span class="muted">{JSON.stringify(chunker.metadata ?? {})}</span>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
