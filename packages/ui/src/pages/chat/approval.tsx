/**
 * A paused run waits for a decision on each call that needs confirmation: the call's tool and
 * arguments, approve or decline (radio buttons, so the keyboard works as everywhere), then
 * one "Continue" sends every decision.
 */
import { useState } from 'preact/hooks';
import type { RunTool } from '../../api/runs';

export function Approval({ tools, onDecide }: { tools: RunTool[]; onDecide(decisions: Record<string, boolean>): void }) {
  const [decisions, setDecisions] = useState<Record<string, boolean>>({});
  const complete = tools.every((t) => decisions[t.tool_call_id] !== undefined);
  return (
    <section class="card approval" aria-labelledby="approval-heading" data-testid="approval">
      <h2 id="approval-heading">The run is paused: {tools.length === 1 ? 'a call needs' : `${tools.length} calls need`} your decision</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (complete) onDecide(decisions);
        }}
      >
        {tools.map((tool) => (
          <fieldset key={tool.tool_call_id} data-testid="approval-call">
            <legend>
              {tool.tool_name} <code>{tool.tool_call_id}</code>
            </legend>
            <pre aria-label={`Arguments of ${tool.tool_name}`}>{tool.tool_args}</pre>
            <label>
              <input
                type="radio"
                name={`decision-${tool.tool_call_id}`}
                checked={decisions[tool.tool_call_id] === true}
                onChange={() => setDecisions((d) => ({ ...d, [tool.tool_call_id]: true }))}
              />{' '}
              Approve
            </label>{' '}
            <label>
              <input
                type="radio"
                name={`decision-${tool.tool_call_id}`}
                checked={decisions[tool.tool_call_id] === false}
                onChange={() => setDecisions((d) => ({ ...d, [tool.tool_call_id]: false }))}
              />{' '}
              Decline
            </label>
          </fieldset>
        ))}
        <button type="submit" disabled={!complete}>
          Continue the run
        </button>
      </form>
    </section>
  );
}
