/**
 * The chosen component's stored sessions, newest first: open one to go on with it, rename it,
 * delete it (after a confirmation). Actions the caller's scopes do not cover are left out.
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
import type { Target } from './use-chat';

type Session = components['schemas']['Session'];

interface Props {
  target: Target;
  current: string | undefined;
  /** Bumped when a run ends, so a new session shows up. */
  changes: number;
  onOpen(sessionId: string | undefined): void;
}

export function SessionList({ target, current, changes, onOpen }: Props) {
  const { caller } = useSession();
  const [renaming, setRenaming] = useState<Session>();
  const [name, setName] = useState('');
  const [deleting, setDeleting] = useState<Session>();
  const [error, setError] = useState<string>();
  const mayRead = can(caller, 'sessions:read');
  const sessions = useAsync(
    async () =>
      mayRead
        ? (await unwrap(api.GET('/sessions', { params: { query: { type: target.kind, component_id: target.id, sort_by: 'updated_at', sort_order: 'desc', limit: 50 } } }))).data
        : [],
    [target.kind, target.id, changes, mayRead],
  );

  const act = async (work: Promise<unknown>) => {
    setError(undefined);
    try {
      await work;
      sessions.reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const rename = (session: Session) =>
    act(unwrap(api.POST('/sessions/{session_id}/rename', { params: { path: { session_id: session.session_id } }, body: { session_name: name } }))).then(() =>
      setRenaming(undefined),
    );
  const remove = (session: Session) => {
    setDeleting(undefined);
    void act(unwrap(api.DELETE('/sessions/{session_id}', { params: { path: { session_id: session.session_id } } }))).then(() => {
      if (session.session_id === current) onOpen(undefined);
    });
  };

  return (
    <section aria-labelledby="sessions-heading" class="sessions">
      <h2 id="sessions-heading">Sessions</h2>
      <button type="button" class="secondary" onClick={() => onOpen(undefined)}>
        New chat
      </button>
      <ErrorText message={sessions.error ?? error} />
      {!mayRead ? <p class="muted">Listing sessions needs the sessions:read scope.</p> : null}
      <ul>
        {(sessions.data ?? []).map((session) => {
          const label = session.session_name ?? session.session_id.slice(0, 8);
          return (
            <li key={session.session_id} data-testid="session" class={session.session_id === current ? 'current' : ''}>
              {renaming === session ? (
                <form
                  class="row"
                  onSubmit={(e) => {
                    e.preventDefault();
                    if (name.trim()) void rename(session);
                  }}
                >
                  <label for="session-name" class="visually-hidden">
                    New name
                  </label>
                  <input id="session-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
                  <button type="submit">Save</button>
                  <button type="button" class="secondary" onClick={() => setRenaming(undefined)}>
                    Cancel
                  </button>
                </form>
              ) : (
                <>
                  <button type="button" class="link" aria-current={session.session_id === current ? 'true' : undefined} onClick={() => onOpen(session.session_id)}>
                    {label}
                  </button>
                  <span class="session-actions">
                    {can(caller, 'sessions:write') ? (
                      <button
                        type="button"
                        class="link"
                        aria-label={`Rename ${label}`}
                        onClick={() => {
                          setName(session.session_name ?? '');
                          setRenaming(session);
                        }}
                      >
                        Rename
                      </button>
                    ) : null}
                    {can(caller, 'sessions:delete') ? (
                      <button type="button" class="link" aria-label={`Delete ${label}`} onClick={() => setDeleting(session)}>
                        Delete
                      </button>
                    ) : null}
                  </span>
                </>
              )}
            </li>
          );
        })}
      </ul>
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this session?"
        confirmLabel="Delete"
        onConfirm={() => deleting && remove(deleting)}
        onCancel={() => setDeleting(undefined)}
      >
        <p>Its runs and messages are deleted. Traces stay until their retention ends.</p>
      </ConfirmDialog>
    </section>
  );
}
