/**
 * User memories: what agents remember about their users (GET /memories), filtered by user, topic
 * and text, a page at a time; adding one for a user, and deleting one after a confirmation. A
 * caller that names a user sees only its own (the runtime decides); controls the caller's scopes
 * do not allow are left out.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { can } from '../../auth/scopes';
import { useSession } from '../../auth/session';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import { AddMemory } from './add-memory';

type Memory = components['schemas']['UserMemory'];

const PAGE = 20;
const when = (epoch: number): string => new Date(epoch * 1000).toISOString().slice(0, 16).replace('T', ' ');

export function Memories() {
  const { caller } = useSession();
  const [filters, setFilters] = useState({ user_id: '', topic: '', text: '' });
  const [draft, setDraft] = useState(filters);
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<Memory>();
  const [error, setError] = useState<string>();
  const memories = useAsync(() => {
    const query = { limit: PAGE, page, sort_by: 'updated_at' as const, sort_order: 'desc' as const };
    for (const key of ['user_id', 'topic', 'text'] as const) if (filters[key].trim()) Object.assign(query, { [key]: filters[key].trim() });
    return unwrap(api.GET('/memories', { params: { query } }));
  }, [filters, page]);

  const apply = (event: Event) => {
    event.preventDefault();
    setPage(1);
    setFilters(draft);
  };
  const remove = async (memory: Memory) => {
    setDeleting(undefined);
    setError(undefined);
    try {
      await unwrap(api.DELETE('/memories/{memory_id}', { params: { path: { memory_id: memory.memory_id } } }));
      memories.reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const meta = memories.data?.meta;

  return (
    <main class="page" id="main">
      <h1>Memories</h1>
      <p>
        Short facts agents with <code>memory</code> keep about each user, recalled into that user's later conversations. A signed-in user
        sees only their own.
      </p>
      <form class="card" onSubmit={apply} aria-label="Filter memories">
        <div class="row">
          {(['user_id', 'topic', 'text'] as const).map((key) => (
            <div class="field" key={key}>
              <label for={`memory-filter-${key}`}>{key === 'user_id' ? 'User' : key === 'topic' ? 'Topic' : 'Text contains'}</label>
              <input id={`memory-filter-${key}`} value={draft[key]} onInput={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })} />
            </div>
          ))}
        </div>
        <div class="actions">
          <button type="submit">Show</button>
        </div>
      </form>
      {can(caller, 'memories:write') ? <AddMemory key={filters.user_id} user={filters.user_id} onAdded={memories.reload} /> : null}
      <ErrorText message={memories.error ?? error} />
      <table>
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Memory</th>
            <th scope="col">Topics</th>
            <th scope="col">From</th>
            <th scope="col">Updated</th>
            {can(caller, 'memories:delete') ? <th scope="col">Delete</th> : null}
          </tr>
        </thead>
        <tbody>
          {(memories.data?.data ?? []).map((memory) => (
            <tr key={memory.memory_id} data-testid="memory">
              <td>{memory.user_id}</td>
              <td>{memory.memory}</td>
              <td>{memory.topics.join(', ')}</td>
              <td>{memory.agent_id ?? 'API'}</td>
              <td>{when(memory.updated_at)}</td>
              {can(caller, 'memories:delete') ? (
                <td>
                  <button type="button" class="secondary" aria-label={`Delete the memory “${memory.memory.slice(0, 40)}”`} onClick={() => setDeleting(memory)}>
                    Delete
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {meta && meta.total_count === 0 ? <p class="muted">No memories{filters.user_id ? ` for ${filters.user_id}` : ''} yet.</p> : null}
      {meta && meta.total_pages > 1 ? (
        <div class="actions">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span class="muted">
            Page {meta.page} of {meta.total_pages} ({meta.total_count} memories)
          </span>
          <button type="button" class="secondary" disabled={page >= meta.total_pages} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </div>
      ) : null}
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this memory?"
        confirmLabel="Delete"
        onConfirm={() => deleting && void remove(deleting)}
        onCancel={() => setDeleting(undefined)}
      >
        <p>Agents will no longer recall “{deleting?.memory}” for {deleting?.user_id}.</p>
      </ConfirmDialog>
    </main>
  );
}
