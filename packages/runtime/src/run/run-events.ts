/**
 * @module run/run-events
 * A run's events: their names for each kind of run, the fields every event carries, and the log
 * that streams them to the caller at once and keeps them until the chores store them.
 */
import type { Model } from '../model/model.js';
import type { StoredRunEvent } from '../sessions/run-event-store.js';
import { epochSeconds, type SessionType } from '../sessions/types.js';
import { AsyncQueue } from './async-queue.js';
import type { Runnable } from './execution.js';

export type RunEvent = { event: string; created_at: number; run_id: string; session_id: string } & Record<string, unknown>;

export const LIFECYCLE: Record<SessionType, { started: string; completed: string; error: string; cancelled: string; prefix: string }> = {
  agent: { started: 'RunStarted', completed: 'RunCompleted', error: 'RunError', cancelled: 'RunCancelled', prefix: '' },
  team: { started: 'TeamRunStarted', completed: 'TeamRunCompleted', error: 'TeamRunError', cancelled: 'TeamRunCancelled', prefix: 'Team' },
  workflow: { started: 'WorkflowStarted', completed: 'WorkflowCompleted', error: 'WorkflowError', cancelled: 'WorkflowCancelled', prefix: '' },
};

export function identityFields(component: Runnable): Record<string, unknown> {
  const name = component.name ?? component.id;
  if (component.kind === 'agent') return { agent_id: component.id, agent_name: name };
  if (component.kind === 'team') return { team_id: component.id, team_name: name };
  return { workflow_id: component.id, workflow_name: name };
}

/** The model fields of a run's first event: a workflow's steps bring their own models. */
export function describeModel(component: Runnable, fallback: Model | undefined): Record<string, unknown> {
  const own = (component as { model?: Model }).model;
  const model = own ?? (component.kind === 'workflow' ? undefined : fallback);
  return model ? { model: model.id, model_provider: model.provider } : {};
}

/** Text deltas, merged when stored so a long answer is a few rows rather than one per token. */
const CONTENT_EVENTS = new Set(['RunContent', 'TeamRunContent']);

/** One run's events as they happen: streamed at once, and kept in `unstored` until stored. */
export class RunEventLog {
  /** Every event of the run, for the caller that started it; closed after the final one. */
  readonly stream = new AsyncQueue<RunEvent>();
  /** Events streamed but not stored yet (consecutive text deltas merged); storing empties it. */
  readonly unstored: StoredRunEvent[] = [];
  private seq: number;

  /** `lastSeq`: the events of this run stored before (a continued run goes on numbering them). */
  constructor(
    private readonly runId: string,
    private readonly sessionId: string,
    private readonly identity: Record<string, unknown>,
    lastSeq: number,
  ) {
    this.seq = lastSeq;
  }

  /**
   * Each streamed event's SSE id (see `eventId`): the index of the stored event it is, or is
   * part of, with the text stored in that event up to and including it for text deltas.
   */
  private readonly ids = new WeakMap<RunEvent, string>();

  send(event: string, fields: Record<string, unknown> = {}): void {
    this.stream.push(this.record(event, fields));
  }

  /**
   * Records an event to be stored, without streaming it yet (`stream.push` it later): a run's
   * final event is stored before its final status, and streamed after it.
   */
  record(event: string, fields: Record<string, unknown> = {}): RunEvent {
    const payload: RunEvent = { event, created_at: epochSeconds(), run_id: this.runId, session_id: this.sessionId, ...this.identity, ...fields };
    const last = this.unstored.at(-1);
    const text = CONTENT_EVENTS.has(event) && typeof payload.content === 'string';
    if (last && text && last.event === event) {
      const merged = JSON.parse(last.data) as RunEvent;
      if (typeof merged.content === 'string') {
        merged.content += payload.content as string;
        last.data = JSON.stringify(merged);
        this.ids.set(payload, textEventId(last.seq, merged.content.length));
        return payload;
      }
    }
    this.unstored.push({ seq: ++this.seq, event, data: JSON.stringify(payload) });
    this.ids.set(payload, text ? textEventId(this.seq, (payload.content as string).length) : String(this.seq));
    return payload;
  }

  /** The SSE id of an event this log streamed. */
  eventId(event: RunEvent): string | undefined {
    return this.ids.get(event);
  }
}

/**
 * A text delta's id: the stored event it is merged into, and how much of that event's text the
 * client has with it (`<index>:<characters>`), so a reconnect resumes mid-event without a gap
 * or a repeat. Other events' ids are the plain index.
 */
export function textEventId(seq: number, chars: number): string {
  return `${seq}:${chars}`;
}

/** Where a client resumes: after event `seq`, or inside it after `chars` characters of its text. */
export interface ResumePoint {
  seq: number;
  chars?: number | undefined;
}

/** Reads a `Last-Event-ID` or `after` value (`12` or `12:340`); undefined when it is neither. */
export function parseEventId(value: string | undefined | null): ResumePoint | undefined {
  const match = /^(\d{1,15})(?::(\d{1,15}))?$/.exec(value?.trim() ?? '');
  if (!match) return undefined;
  return match[2] === undefined ? { seq: Number(match[1]) } : { seq: Number(match[1]), chars: Number(match[2]) };
}
