/** Sessions, newest first, and the runs of the one opened: pick a run to see its detail. */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { Kind } from '../../api/runs';
import type { components } from '../../api/schema';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import type { RunRef } from './run-detail';

type Session = components['schemas']['Session'];
type Run = components['schemas']['Run'];

function componentOf(session: Session): { kind: Kind; id: string } {
  const kind = session.session_type;
  return { kind, id: (kind === 'agent' ? session.agent_id : kind === 'team' ? session.team_id : session.workflow_id) ?? '' };
}

function Runs({ session, selected, onSelect }: { session: Session; selected: string | undefined; onSelect(run: RunRef): void }) {
  const runs = useAsync(() => unwrap(api.GET('/sessions/{session_id}/runs', { params: { path: { session_id: session.session_id } } })), [session.session_id]);
  const { kind, id } = componentOf(session);
  return (
    <>
      <ErrorText message={runs.error} />
      <ul class="runs">
        {(runs.data ?? []).map((run: Run) => (
          <li key={run.run_id} data-testid="run">
            <button type="button" class="link" aria-current={run.run_id === selected ? 'true' : undefined} onClick={() => onSelect({ kind, id, runId: run.run_id })}>
              {run.input.message.slice(0, 60) || run.run_id}
            </button>{' '}
            <span class={`badge ${run.status}`}>{run.status}</span>{' '}
            <span class="muted">
              {run.metrics.total_tokens} tokens · {run.metrics.duration.toFixed(2)} s
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

export function SessionRuns({ selected, onSelect }: { selected: string | undefined; onSelect(run: RunRef): void }) {
  const [open, setOpen] = useState<string>();
  const sessions = useAsync(() => unwrap(api.GET('/sessions', { params: { query: { sort_by: 'updated_at', sort_order: 'desc', limit: 30 } } })), []);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <ErrorText message={sessions.error} />
      <ul class="session-tree">
        {(sessions.data?.data ?? []).map((session) => {
          const { kind, id } = componentOf(session);
          return (
            <li key={session.session_id} data-testid="runs-session">
              <button type="button" class="link" aria-expanded={open === session.session_id} onClick={() => setOpen(open === session.session_id ? undefined : session.session_id)}>
                {session.session_name ?? session.session_id.slice(0, 8)}
              </button>{' '}
              <span class="muted">
                {kind} {id}
              </span>
              {open === session.session_id ? <Runs session={session} selected={selected} onSelect={onSelect} /> : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
