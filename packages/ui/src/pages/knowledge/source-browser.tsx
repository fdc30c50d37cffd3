/**
 * The base's remote content sources (S3, GCS, Azure Blob, GitHub, SharePoint: whatever
 * `GET /knowledge/config` lists), browsed a folder at a time through
 * `GET /knowledge/{id}/sources/{source}/files`, and a file or a whole folder ingested with
 * `POST /knowledge/remote-content` (a folder becomes one record with a child per file, shown in
 * the records list). The runtime does the fetching with its own credentials; the browser only
 * sees names and sizes.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import { SourceListing } from './source-listing';

type Source = components['schemas']['KnowledgeRemoteContentSource'];

interface Props {
  /** The base's id, which the sources routes take in their path. */
  knowledgeId: string;
  sources: Source[];
  mayIngest: boolean;
  onAdded(): void;
}

const PAGE = 50;

export function SourceBrowser({ knowledgeId, sources, mayIngest, onAdded }: Props) {
  const [sourceId, setSourceId] = useState(sources[0]?.id ?? '');
  const [prefix, setPrefix] = useState('');
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string>();
  const listing = useAsync(
    () =>
      unwrap(
        api.GET('/knowledge/{knowledge_id}/sources/{source_id}/files', {
          params: { path: { knowledge_id: knowledgeId, source_id: sourceId }, query: { ...(prefix ? { prefix } : {}), page, limit: PAGE } },
        }),
      ),
    [knowledgeId, sourceId, prefix, page],
  );

  const openFolder = (next: string) => {
    setPrefix(next);
    setPage(1);
  };

  const ingest = async (path: string) => {
    setError(undefined);
    setStatus(`Sending ${path}…`);
    try {
      await unwrap(api.POST('/knowledge/remote-content', { params: { query: { knowledge_id: knowledgeId } }, body: { config_id: sourceId, path } }));
      setStatus(`Accepted ${path}: processing`);
      onAdded();
    } catch (failure) {
      setStatus('');
      setError(messageOf(failure));
    }
  };

  // The parent folder: the prefix without its last segment ("a/b/" -> "a/").
  const parent = prefix.replace(/[^/]*\/$/, '');
  return (
    <section aria-labelledby="sources-heading">
      <h2 id="sources-heading">Remote sources</h2>
      {sources.length > 1 ? (
        <div class="field">
          <label for="source">Source</label>
          <select
            id="source"
            value={sourceId}
            onChange={(e) => {
              setSourceId(e.currentTarget.value);
              openFolder('');
            }}
          >
            {sources.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.type})
              </option>
            ))}
          </select>
        </div>
      ) : (
        <p class="muted">
          {sources[0]?.name} ({sources[0]?.type})
        </p>
      )}
      <p class="row">
        <span>
          Folder: <code data-testid="source-prefix">/{prefix}</code>
        </span>
        {prefix ? (
          <button type="button" class="secondary" onClick={() => openFolder(parent)}>
            Up
          </button>
        ) : null}
        {mayIngest && prefix ? (
          <button type="button" onClick={() => void ingest(prefix)}>
            Ingest this folder
          </button>
        ) : null}
      </p>
      <ErrorText message={listing.error ?? error} />
      {listing.data ? <SourceListing listing={listing.data} mayIngest={mayIngest} onOpen={openFolder} onIngest={(path) => void ingest(path)} /> : null}
      {(listing.data?.meta.total_pages ?? 1) > 1 ? (
        <nav class="row" aria-label="Source pages">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {listing.data?.meta.total_pages}
          </span>
          <button type="button" class="secondary" disabled={page >= (listing.data?.meta.total_pages ?? 1)} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
      <p class="status" role="status">
        {status}
      </p>
    </section>
  );
}
