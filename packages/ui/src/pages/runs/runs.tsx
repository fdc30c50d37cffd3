/**
 * Runs and traces: usage per day (`GET /metrics`), then sessions, a session's runs, and a run's
 * events and trace tree. Each part shows only when the caller's scopes allow it.
 */
import { useState } from 'preact/hooks';
import { can } from '../../auth/scopes';
import { useSession } from '../../auth/session';
import { RunDetail, type RunRef } from './run-detail';
import { SessionRuns } from './session-runs';
import { UsageChart } from './usage-chart';

export function Runs() {
  const { caller } = useSession();
  const [run, setRun] = useState<RunRef>();
  return (
    <main class="page" id="main">
      <h1>Runs and traces</h1>
      {can(caller, 'metrics:read') ? <UsageChart /> : <p class="muted">Usage needs the metrics:read scope.</p>}
      <div class="grid-2">
        {can(caller, 'sessions:read') ? <SessionRuns selected={run?.runId} onSelect={setRun} /> : <p class="muted">Sessions need the sessions:read scope.</p>}
        {run ? <RunDetail key={run.runId} run={run} mayTrace={can(caller, 'traces:read')} /> : <p class="muted">Pick a run to see its events and trace.</p>}
      </div>
    </main>
  );
}
