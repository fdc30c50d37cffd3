/**
 * Runs of agents, teams and workflows over the typed client: start, continue a paused run,
 * cancel. Streamed runs answer server-sent events; eventsource-parser reads them from the
 * response body, so the panel sees each event (text deltas, tool calls, a pause) as it comes.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { api } from './client';
import { problemOf, networkProblem } from './errors';
import type { components } from './schema';

export type Kind = 'agent' | 'team' | 'workflow';
export type RunRequest = components['schemas']['RunRequest'];
export type ContinueRequest = components['schemas']['ContinueRequest'];
export type RunTool = components['schemas']['Run']['tools'][number];

/** One event of a run's stream: its name and its JSON fields. */
export interface RunEvent {
  event: string;
  data: Record<string, unknown>;
}

interface Raw {
  data?: unknown;
  error?: unknown;
  response: Response;
}

function start(kind: Kind, id: string, body: RunRequest, signal: AbortSignal): Promise<Raw> {
  const init = { body, parseAs: 'stream' as const, signal };
  if (kind === 'agent') return api.POST('/agents/{agent_id}/runs', { ...init, params: { path: { agent_id: id } } });
  if (kind === 'team') return api.POST('/teams/{team_id}/runs', { ...init, params: { path: { team_id: id } } });
  return api.POST('/workflows/{workflow_id}/runs', { ...init, params: { path: { workflow_id: id } } });
}

function resume(kind: Kind, id: string, runId: string, body: ContinueRequest, signal: AbortSignal): Promise<Raw> {
  const init = { body, parseAs: 'stream' as const, signal };
  if (kind === 'agent') return api.POST('/agents/{agent_id}/runs/{run_id}/continue', { ...init, params: { path: { agent_id: id, run_id: runId } } });
  if (kind === 'team') return api.POST('/teams/{team_id}/runs/{run_id}/continue', { ...init, params: { path: { team_id: id, run_id: runId } } });
  return api.POST('/workflows/{workflow_id}/runs/{run_id}/continue', { ...init, params: { path: { workflow_id: id, run_id: runId } } });
}

export async function cancelRun(kind: Kind, id: string, runId: string): Promise<void> {
  let result: Raw;
  try {
    if (kind === 'agent') result = await api.POST('/agents/{agent_id}/runs/{run_id}/cancel', { params: { path: { agent_id: id, run_id: runId } } });
    else if (kind === 'team') result = await api.POST('/teams/{team_id}/runs/{run_id}/cancel', { params: { path: { team_id: id, run_id: runId } } });
    else result = await api.POST('/workflows/{workflow_id}/runs/{run_id}/cancel', { params: { path: { workflow_id: id, run_id: runId } } });
  } catch (error) {
    throw networkProblem(error);
  }
  if (!result.response.ok) throw problemOf(result.response.status, result.error);
}

/** The events of a streamed answer, in order, until the stream ends. */
async function* events(call: Promise<Raw>): AsyncGenerator<RunEvent> {
  let result: Raw;
  try {
    result = await call;
  } catch (error) {
    throw networkProblem(error);
  }
  const { response } = result;
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    throw problemOf(response.status, body);
  }
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(value.data) as Record<string, unknown>;
    } catch {
      continue;
    }
    yield { event: value.event ?? String(data.event ?? 'message'), data };
  }
}

export function streamRun(kind: Kind, id: string, body: RunRequest, signal: AbortSignal): AsyncGenerator<RunEvent> {
  return events(start(kind, id, { ...body, stream: true }, signal));
}

export function streamContinue(kind: Kind, id: string, runId: string, body: ContinueRequest, signal: AbortSignal): AsyncGenerator<RunEvent> {
  return events(resume(kind, id, runId, { ...body, stream: true }, signal));
}

function follow(kind: Kind, id: string, runId: string, signal: AbortSignal): Promise<Raw> {
  const init = { parseAs: 'stream' as const, signal };
  if (kind === 'agent') return api.GET('/agents/{agent_id}/runs/{run_id}/events', { ...init, params: { path: { agent_id: id, run_id: runId } } });
  if (kind === 'team') return api.GET('/teams/{team_id}/runs/{run_id}/events', { ...init, params: { path: { team_id: id, run_id: runId } } });
  return api.GET('/workflows/{workflow_id}/runs/{run_id}/events', { ...init, params: { path: { workflow_id: id, run_id: runId } } });
}

/** A run's stored events, then its live ones until it ends (a finished run's stream ends at once). */
export function runEvents(kind: Kind, id: string, runId: string, signal: AbortSignal): AsyncGenerator<RunEvent> {
  return events(follow(kind, id, runId, signal));
}
