/**
 * @module schedules/types
 * A schedule and its occurrences, as stored and as clients see them.
 */

export type TargetKind = 'agent' | 'team' | 'workflow';
export const TARGET_KINDS: readonly TargetKind[] = ['agent', 'team', 'workflow'];

export interface ScheduleInput {
  message: string;
  /** Every occurrence's run continues this session; none: a new session per run. */
  session_id?: string | undefined;
}

export interface Schedule {
  schedule_id: string;
  name: string;
  cron: string;
  timezone: string;
  target: { kind: TargetKind; id: string };
  input: ScheduleInput;
  webhook: string | null;
  enabled: boolean;
  /** Whom the runs act for: the user who created the schedule, if the credential named one. */
  user_id: string | null;
  /** The next occurrence not yet handled (ISO); null while disabled. */
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * `started`: a run was started (run_id); `skipped`: missed while no runtime was up and older
 * than the catch-up window; `failed`: the run could not start (error); `starting`: being started.
 */
export type OccurrenceState = 'starting' | 'started' | 'skipped' | 'failed';
/** `cron`: the expression's occurrence; `manual`: POST /schedules/{id}/trigger. */
export type OccurrenceTrigger = 'cron' | 'manual';

export interface Occurrence {
  schedule_id: string;
  trigger: OccurrenceTrigger;
  occurrence_at: string;
  state: OccurrenceState;
  run_id: string | null;
  /** The run's status now (null when no run or the run was deleted). */
  run_status: string | null;
  error: string | null;
  recorded_at: string;
}
