/**
 * How `svc traces` prints for people: the list as a table, one run as an indented span tree
 * (one line per span). Pure functions of the API's answer, so tests pin the exact text.
 * Names and error messages come from models and tools, so control characters are replaced
 * before they reach a terminal, and every span stays on one line.
 */
import type { Span, Trace, TraceTree } from '../../http/traces.js';

const ERROR_MAX = 200;

/** One printable line: no escape sequences, no line breaks. */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

function errorText(message: string): string {
  const line = clean(message);
  return line.length > ERROR_MAX ? `${line.slice(0, ERROR_MAX - 1)}…` : line;
}

/** Epoch ms as `2026-01-31 12:00:05 UTC`. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const tokens = (input: number | null, output: number | null): string => `tokens ${input ?? '-'} in / ${output ?? '-'} out`;

/** A span's own facts after its kind and name. */
function details(span: Span): string[] {
  const parts = [`${Math.max(0, span.end_ms - span.start_ms)} ms`];
  if (span.kind === 'model' && (span.input_tokens !== null || span.output_tokens !== null)) parts.push(tokens(span.input_tokens, span.output_tokens));
  // A tool's outcome is the point of its line; other spans say theirs only when it is not ok.
  if (span.kind === 'tool' || span.status !== 'ok') parts.push(span.status);
  const error = span.attributes.error;
  if (span.status !== 'ok' && typeof error === 'string' && error !== '') parts[parts.length - 1] += `: ${errorText(error)}`;
  return parts;
}

/** The run span's line carries the run's totals: its status, duration and every model call's tokens. */
function rootDetails(trace: Trace): string[] {
  // The same order as a span's line: duration, tokens, then how it ended (and why, if it failed).
  return [`${trace.duration_ms} ms`, tokens(trace.input_tokens, trace.output_tokens), trace.error ? `${trace.status}: ${errorText(trace.error)}` : trace.status];
}

const line = (span: Span, facts: string[]): string => `${span.kind} ${clean(span.name)}  ${facts.join('  ')}`;

/** The run's span tree, indented with box-drawing guides, children in the order the API gives (start order). */
export function renderTree(trace: TraceTree): string[] {
  const lines: string[] = [];
  const walk = (span: Span, prefix: string, last: boolean, top: boolean): void => {
    const facts = top && span.kind === 'run' ? rootDetails(trace) : details(span);
    lines.push(top ? line(span, facts) : `${prefix}${last ? '└─ ' : '├─ '}${line(span, facts)}`);
    const childPrefix = top ? '' : `${prefix}${last ? '   ' : '│  '}`;
    span.children.forEach((child, i) => walk(child, childPrefix, i === span.children.length - 1, false));
  };
  for (const span of trace.spans) walk(span, '', true, true);
  // A run without spans (written by an older runtime, say) still shows its totals.
  if (trace.spans.length === 0) lines.push(`run ${trace.component_type}:${clean(trace.component_id)}  ${rootDetails(trace).join('  ')}`);
  return lines;
}

/** The line above the tree: which run, whose, and when. */
export function runHeading(trace: Trace): string {
  const who = trace.user_id === null ? '' : `, user ${clean(trace.user_id)}`;
  return `Run ${clean(trace.run_id)} (${trace.component_type} ${clean(trace.component_id)}, session ${clean(trace.session_id)}${who}), started ${formatTime(trace.start_ms)}`;
}

export const TABLE_HEADER = ['Run', 'Component', 'Status', 'Duration', 'Tokens in/out', 'Started'];

export function tableRows(traces: readonly Trace[]): string[][] {
  return traces.map((t) => [
    clean(t.run_id),
    `${t.component_type}:${clean(t.component_id)}`,
    t.status,
    `${t.duration_ms} ms`,
    `${t.input_tokens}/${t.output_tokens}`,
    formatTime(t.start_ms),
  ]);
}

/** Columns padded to their widest cell, two spaces apart (as `svc tokens list` prints). */
export function renderTable(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [fmt(header), ...rows.map(fmt)];
}
