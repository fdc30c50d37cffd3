/**
 * The base's content records, newest first, with live status: while any record is processing
 * the list is read again every second, so "processing" turns into "completed" or "failed" with
 * the runtime's reason. A collection (a website, a folder) expands into its children.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import { CollectionToggle } from './collection-toggle';

type Content = components['schemas']['KnowledgeContent'];

interface Props {
  knowledgeId: string | undefined;
  /** Bumped by the page when content was added, to read the list at once. */
  changes: number;
  mayDelete: boolean;
  parentId?: string;
}

const PAGE = 25;

function size(bytes: number | null): string {
  if (bytes === null) return '';
  return bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1048576).toFixed(1)} MB`;
}

export function Records({ knowledgeId, changes, mayDelete, parentId }: Props) {
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<Content>();
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState<string>();
  const query = { ...(knowledgeId ? { knowledge_id: knowledgeId } : {}), ...(parentId ? { parent_id: parentId } : {}), limit: PAGE, page };
  const records = useAsync(() => unwrap(api.GET('/knowledge/content', { params: { query } })), [knowledgeId, parentId, page, changes]);
  const rows = records.data?.data ?? [];
  const pages = records.data?.meta.total_pages ?? 1;
  const busy = rows.some((r) => r.status === 'processing' || (r.children?.processing ?? 0) > 0);

  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(records.reload, 1000);
    return () => clearTimeout(timer);
  }, [busy, records.data]);

  const remove = async (record: Content) => {
    setDeleting(undefined);
    try {
      await unwrap(
        api.DELETE('/knowledge/content/{content_id}', {
          params: { path: { content_id: record.id }, query: knowledgeId ? { knowledge_id: knowledgeId } : {} },
        }),
      );
      records.reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  const Heading = parentId ? 'h3' : 'h2';
  return (
    <section aria-labelledby={`records-${parentId ?? 'top'}`}>
      <Heading id={`records-${parentId ?? 'top'}`}>{parentId ? 'Pages and files of this collection' : 'Content'}</Heading>
      <ErrorText message={records.error ?? error} />
      {rows.length === 0 && !records.loading ? <p class="muted">Nothing here yet.</p> : null}
      <ul class="records">
        {rows.map((record) => (
          <li key={record.id} class="card" data-testid="record">
            <div class="row">
              <strong class="name">{record.name ?? record.source ?? record.id}</strong>
              <span class={`badge ${record.status}`} data-testid="record-status">
                {record.status}
              </span>
              <span class="muted">
                {[record.reader_id, record.chunker, size(record.size), record.chunks === null ? '' : `${record.chunks} chunks`].filter(Boolean).join(' · ')}
              </span>
            </div>
            {record.status === 'failed' && record.status_message ? (
              <p class="error" data-testid="record-reason">
                Failed: {record.status_message}
              </p>
            ) : null}
            {parentId ? null : (
              <CollectionToggle record={record} open={open === record.id} onToggle={() => setOpen(open === record.id ? undefined : record.id)} />
            )}
            {open === record.id ? <Records knowledgeId={knowledgeId} changes={changes} mayDelete={false} parentId={record.id} /> : null}
            {mayDelete && !parentId ? (
              <button type="button" class="secondary" onClick={() => setDeleting(record)} aria-label={`Delete ${record.name ?? record.id}`}>
                Delete
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {pages > 1 ? (
        <nav class="row" aria-label="Content pages">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" class="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this content?"
        confirmLabel="Delete"
        onConfirm={() => deleting && void remove(deleting)}
        onCancel={() => setDeleting(undefined)}
      >
        <p>
          {deleting?.name ?? deleting?.id} and its chunks are removed from the base. Agents will no longer find it.
        </p>
      </ConfirmDialog>
    </section>
  );
}
