/**
 * A run's spans as a nested list: model calls (tokens, latency), tool calls, knowledge
 * searches, team members and workflow steps, each with its attributes on demand. Attribute
 * values come from agents and documents, so they are shown as text only.
 */
import type { components } from '../../api/schema';

type Span = components['schemas']['Span'];

function Node({ span }: { span: Span }) {
  const tokens = span.input_tokens !== null || span.output_tokens !== null ? ` · ${span.input_tokens ?? 0} in / ${span.output_tokens ?? 0} out` : '';
  return (
    <li data-testid="span" data-kind={span.kind}>
      <details>
        <summary>
          <span class="badge">{span.kind}</span> {span.name} <span class="muted">{span.end_ms - span.start_ms} ms{tokens}</span>{' '}
          {span.status === 'ok' ? null : <span class="badge failed">{span.status}</span>}
        </summary>
        <pre>{JSON.stringify(span.attributes, null, 2)}</pre>
      </details>
      {span.children.length > 0 ? (
        <ul>
          {span.children.map((child) => (
            <Node key={child.span_id} span={child} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function TraceTree({ spans }: { spans: Span[] }) {
  return (
    <ul class="trace-tree" aria-label="Trace">
      {spans.map((span) => (
        <Node key={span.span_id} span={span} />
      ))}
    </ul>
  );
}
