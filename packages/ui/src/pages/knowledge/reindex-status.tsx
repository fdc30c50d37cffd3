/**
 * Where the base's reindex stands (`GET /knowledge/reindex`): its state, the embedder of the
 * vectors searches use now and the one being re-embedded with, chunks done of the total, and
 * the failure if there was one; a "Reindex" button (`POST /knowledge/reindex`) with
 * knowledge:write. Polled every second while queued or running, as the records list is. A base
 * without an embedder has nothing to reindex: the runtime's reason is shown as a plain note,
 * not an alert, since nothing went wrong.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';

type Status = components['schemas']['KnowledgeReindexStatus'];

interface Props {
  knowledgeId: string | undefined;
  mayStart: boolean;
}

const ACTIVE = new Set<Status['state']>(['queued', 'running']);

function progress(status: Status): string {
  const parts = [`${status.chunks_done} of ${status.chunks_total} chunks`];
  if (status.embedder) parts.push(`with ${status.embedder}`);
  if (status.stored_embedder && status.stored_embedder !== status.embedder) parts.push(`searches use ${status.stored_embedder} until it finishes`);
  if (status.attempts > 1) parts.push(`attempt ${status.attempts}`);
  return parts.join(' · ');
}

export function ReindexStatus({ knowledgeId, mayStart }: Props) {
  const query = knowledgeId ? { knowledge_id: knowledgeId } : {};
  const status = useAsync(() => unwrap(api.GET('/knowledge/reindex', { params: { query } })), [knowledgeId]);
  const [error, setError] = useState<string>();
  const [starting, setStarting] = useState(false);
  const current = status.data;
  const active = current !== undefined && ACTIVE.has(current.state);

  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(status.reload, 1000);
    return () => clearTimeout(timer);
  }, [active, status.data]);

  const start = async () => {
    setError(undefined);
    setStarting(true);
    try {
      await unwrap(api.POST('/knowledge/reindex', { params: { query } }));
      status.reload();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setStarting(false);
    }
  };

  return (
    <section aria-labelledby="reindex-heading" class="card">
      <h2 id="reindex-heading">Reindex</h2>
      {status.error ? (
        <p class="muted" data-testid="reindex-unavailable">
          {status.error}
        </p>
      ) : null}
      {current ? (
        <>
          <p>
            <span class={`badge ${current.state === 'completed' ? 'completed' : current.state === 'failed' ? 'failed' : active ? 'processing' : ''}`} data-testid="reindex-state">
              {current.state}
            </span>{' '}
            <span class="muted" data-testid="reindex-progress">
              {progress(current)}
            </span>
          </p>
          {active ? <progress aria-label="Reindex progress" max={Math.max(current.chunks_total, 1)} value={current.chunks_done} /> : null}
          {current.error ? (
            <p class="error" data-testid="reindex-error">
              Failed: {current.error}
            </p>
          ) : null}
          {mayStart ? (
            <button type="button" class="secondary" disabled={active || starting} onClick={() => void start()}>
              {active ? 'Reindexing…' : 'Reindex'}
            </button>
          ) : null}
        </>
      ) : null}
      <ErrorText message={error} />
    </section>
  );
}
