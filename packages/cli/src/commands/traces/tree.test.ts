import { describe, expect, it } from 'vitest';
import type { Span, Trace, TraceTree } from '../../http/traces.js';
import { clean, formatTime, renderTable, renderTree, runHeading, TABLE_HEADER, tableRows } from './tree.js';

const T0 = Date.UTC(2026, 0, 31, 12, 0, 5);

const trace = (over: Partial<Trace> = {}): Trace => ({
  run_id: 'run-1',
  session_id: 's1',
  component_type: 'team',
  component_id: 'router',
  user_id: 'u1',
  status: 'COMPLETED',
  error: null,
  start_ms: T0,
  end_ms: T0 + 120,
  duration_ms: 120,
  input_tokens: 93,
  output_tokens: 21,
  ...over,
});

const span = (kind: string, name: string, start: number, end: number, over: Partial<Span> = {}): Span => ({
  span_id: `${kind}-${name}-${start}`,
  parent_id: null,
  kind,
  name,
  start_ms: T0 + start,
  end_ms: T0 + end,
  status: 'ok',
  input_tokens: kind === 'model' ? 31 : null,
  output_tokens: kind === 'model' ? 7 : null,
  attributes: {},
  children: [],
  ...over,
});

describe('svc traces: the span tree', () => {
  it('prints one line per span, indented, with timings, model tokens, tool status and the run totals on the root', () => {
    const tree: TraceTree = {
      ...trace(),
      spans: [
        span('run', 'team:router', 0, 120, {
          input_tokens: 93,
          output_tokens: 21,
          children: [
            span('model', 'openai/fake-model', 1, 11),
            span('member', 'weather', 12, 110, {
              children: [span('model', 'openai/fake-model', 13, 40), span('tool', 'get_weather', 41, 42), span('model', 'openai/fake-model', 43, 109)],
            }),
            span('knowledge', 'docs', 111, 115),
          ],
        }),
      ],
    };
    expect(renderTree(tree)).toEqual([
      'run team:router  120 ms  tokens 93 in / 21 out  COMPLETED',
      '├─ model openai/fake-model  10 ms  tokens 31 in / 7 out',
      '├─ member weather  98 ms',
      '│  ├─ model openai/fake-model  27 ms  tokens 31 in / 7 out',
      '│  ├─ tool get_weather  1 ms  ok',
      '│  └─ model openai/fake-model  66 ms  tokens 31 in / 7 out',
      '└─ knowledge docs  4 ms',
    ]);
  });

  it('says why a span failed, on its own line; a failed model call has no tokens to show', () => {
    const tree: TraceTree = {
      ...trace({ status: 'ERROR', error: 'Model call failed:\nno such model', duration_ms: 50, input_tokens: 0, output_tokens: 0 }),
      spans: [
        span('run', 'agent:weather', 0, 50, {
          status: 'error',
          children: [
            span('tool', 'get_weather', 1, 3, { status: 'error', attributes: { error: 'city not found' } }),
            span('tool', 'slow_tool', 4, 9, { status: 'cancelled' }),
            span('model', 'openai/fake-model', 10, 20, { status: 'error', input_tokens: null, output_tokens: null, attributes: { error: 'HTTP 400: no such model', error_code: 'MODEL_HTTP_ERROR' } }),
            span('step', 'draft', 21, 22, { status: 'error', attributes: { error: 'x'.repeat(500) } }),
          ],
        }),
      ],
    };
    const lines = renderTree(tree);
    expect(lines.slice(0, 4)).toEqual([
      'run agent:weather  50 ms  tokens 0 in / 0 out  ERROR: Model call failed: no such model',
      '├─ tool get_weather  2 ms  error: city not found',
      '├─ tool slow_tool  5 ms  cancelled',
      '├─ model openai/fake-model  10 ms  error: HTTP 400: no such model',
    ]);
    // A long message is cut, so the line stays readable.
    expect(lines[4]).toBe(`└─ step draft  1 ms  error: ${'x'.repeat(199)}…`);
  });

  it('keeps escape sequences and line breaks from names and messages off the terminal', () => {
    expect(clean('evil\u001b[31mred\u0007\nname')).toBe('evil [31mred name');
    const tree: TraceTree = { ...trace(), spans: [span('run', 'agent:x', 0, 1, { children: [span('tool', 'bad\u001b]0;title\u0007', 0, 1)] })] };
    expect(renderTree(tree)[1]).toBe('└─ tool bad ]0;title  1 ms  ok');
  });

  it('shows several root spans, and a run without spans by its totals', () => {
    const orphan = span('model', 'm', 0, 3);
    expect(renderTree({ ...trace(), spans: [orphan, orphan] })).toEqual(['model m  3 ms  tokens 31 in / 7 out', 'model m  3 ms  tokens 31 in / 7 out']);
    expect(renderTree({ ...trace({ component_type: 'agent', component_id: 'weather' }), spans: [] })).toEqual(['run agent:weather  120 ms  tokens 93 in / 21 out  COMPLETED']);
  });

  it('heads the tree with the run, its component, session, user and start time', () => {
    expect(runHeading(trace())).toBe('Run run-1 (team router, session s1, user u1), started 2026-01-31 12:00:05 UTC');
    expect(runHeading(trace({ user_id: null }))).toBe('Run run-1 (team router, session s1), started 2026-01-31 12:00:05 UTC');
  });
});

describe('svc traces: the list', () => {
  it('is a table of run id, component, status, duration, tokens and start, columns aligned', () => {
    const rows = tableRows([trace({ run_id: 'aaaa-1' }), trace({ run_id: 'b', component_type: 'agent', component_id: 'weather', status: 'ERROR', duration_ms: 7, input_tokens: 0, output_tokens: 0 })]);
    expect(renderTable(TABLE_HEADER, rows)).toEqual([
      'Run     Component      Status     Duration  Tokens in/out  Started',
      'aaaa-1  team:router    COMPLETED  120 ms    93/21          2026-01-31 12:00:05 UTC',
      'b       agent:weather  ERROR      7 ms      0/0            2026-01-31 12:00:05 UTC',
    ]);
  });

  it('formats times in UTC to the second', () => {
    expect(formatTime(T0 + 999)).toBe('2026-01-31 12:00:05 UTC');
  });
});
