/**
 * One run: its events as the runtime stored them (followed live while it runs) and its trace
 * tree (`GET /traces/{run_id}`).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import { runEvents, type Kind, type RunEvent } from '../../api/runs';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import { TraceTree } from './trace-tree';

export interface RunRef {
  kind: Kind;
  id: string;
  runId: string;
}

function summary({ data }: RunEvent): string {
  const tool = data.tool as { tool_name?: string } | undefined;
  if (tool?.tool_name) return tool.tool_name;
  if (typeof data.content === 'string') return data.content.slice(0, 120);
  return '';
}

function Events({ run }: { run: RunRef }) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const event of runEvents(run.kind, run.id, run.runId, abort.signal)) setEvents((all) => [...all, event]);
      } catch (failure) {
        if (!abort.signal.aborted) setError(messageOf(failure));
      }
    })();
    return () => abort.abort();
  }, [run.kind, run.id, run.runId]);
  return (
    <section aria-labelledby="events-heading">
      <h3 id="events-heading">Events</h3>
      <ErrorText message={error} />
      <ol class="events">
        {events.map((e, i) => (
          <li key={i} data-testid="event">
            <code>{e.event}</code> <span class="muted">{summary(e)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function RunDetail({ run, mayTrace }: { run: RunRef; mayTrace: boolean }) {
  const trace = useAsync(
    () => (mayTrace ? unwrap(api.GET('/traces/{run_id}', { params: { path: { run_id: run.runId } } })) : Promise.resolve(undefined)),
    [run.runId, mayTrace],
  );
  return (
    <section aria-labelledby="run-heading" class="card">
      <h2 id="run-heading">
        Run <code>{run.runId.slice(0, 8)}</code> of {run.kind} {run.id}
      </h2>
      <Events run={run} />
      <h3>Trace</h3>
      {!mayTrace ? <p class="muted">Traces need the traces:read scope.</p> : null}
      <ErrorText message={trace.error} />
      {trace.data ? (
        <>
          <p>
            <span class={`badge ${trace.data.status}`}>{trace.data.status}</span> {trace.data.duration_ms} ms · {trace.data.input_tokens} tokens in ·{' '}
            {trace.data.output_tokens} out
          </p>
          <TraceTree spans={trace.data.spans} />
        </>
      ) : null}
    </section>
  );
}
