/**
 * @module workflow/steps
 * The building blocks of a workflow: steps that run an agent, a team or a function, groups of
 * steps that run in parallel, and steps that run only when a condition holds.
 */
import type { Runnable } from '../run/execution.js';

/** What every step sees. */
export interface StepInput {
  /** The message the workflow was started with. */
  message: string;
  /** Content of the step that ran last (for a parallel group: its outputs joined), or null. */
  previous: string | null;
  /** Content of every step that has run so far, by step name. */
  outputs: Readonly<Record<string, string>>;
  sessionId: string;
  userId: string | undefined;
  /**
   * Under user isolation, the user whose data this run may reach (shared data besides);
   * undefined when unconfined. Pass it as `userId` to `Knowledge.search` from a step.
   */
  scopedUserId?: string | undefined;
  /** Under tenancy, the run's tenant: pass it as `tenantId` to `Knowledge.search` from a step. */
  scopedTenantId?: string | undefined;
  signal: AbortSignal;
}

export type StepFunction = (input: StepInput) => Promise<string> | string;

export interface Step {
  kind: 'step';
  name: string;
  /** An agent or team receives the previous step's content (or the message, for the first step). */
  executor: Runnable | StepFunction;
}

export interface ParallelSteps {
  kind: 'parallel';
  name: string;
  steps: Step[];
}

export interface ConditionalSteps {
  kind: 'condition';
  name: string;
  when: (input: StepInput) => boolean | Promise<boolean>;
  steps: WorkflowStep[];
}

export type WorkflowStep = Step | ParallelSteps | ConditionalSteps;

export function step(name: string, executor: Runnable | StepFunction): Step {
  return { kind: 'step', name, executor };
}

export function parallel(name: string, ...steps: Step[]): ParallelSteps {
  if (steps.length === 0) throw new TypeError(`parallel group "${name}" needs at least one step`);
  return { kind: 'parallel', name, steps };
}

export function condition(name: string, when: ConditionalSteps['when'], ...steps: WorkflowStep[]): ConditionalSteps {
  return { kind: 'condition', name, when, steps };
}

/** Every step name in a tree, for the uniqueness check and `/workflows/{id}`. */
export function stepNames(steps: readonly WorkflowStep[]): string[] {
  return steps.flatMap((s) => (s.kind === 'step' ? [s.name] : [s.name, ...stepNames(s.steps)]));
}
