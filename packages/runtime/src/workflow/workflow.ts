/**
 * @module workflow/workflow
 * A workflow: ordered steps, each fed by the one before, with parallel groups and conditions.
 *
 * @example
 * ```ts
 * const research = new Workflow({
 *   id: 'research',
 *   steps: [step('search', searcher), parallel('drafts', step('a', writerA), step('b', writerB)), step('edit', editor)],
 * });
 * ```
 */
import type { TraceSpan } from '../components/tracer.js';
import { memberContent, type ExecutionContext, type ExecutionResult, type Runnable } from '../run/execution.js';
import { identityFields } from '../run/run-events.js';
import type { Db } from '../storage/db.js';
import { stepNames, type Step, type StepInput, type WorkflowStep } from './steps.js';

export interface WorkflowOptions {
  id: string;
  name?: string;
  description?: string;
  /** Every run's end is also posted here (signed; needs WEBHOOK_SECRET), besides a request's own `webhook`. */
  webhook?: string;
  steps: WorkflowStep[];
  db?: Db;
}

export class Workflow implements Runnable {
  readonly kind = 'workflow' as const;
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly webhook: string | undefined;
  readonly steps: readonly WorkflowStep[];
  readonly db: Db | undefined;

  constructor(options: WorkflowOptions) {
    if (!options.steps?.length) throw new TypeError(`Workflow "${options.id}" needs at least one step`);
    const names = stepNames(options.steps);
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate) throw new TypeError(`Workflow "${options.id}" has two steps named "${duplicate}"`);
    this.id = options.id;
    this.name = options.name ?? options.id;
    this.description = options.description;
    this.webhook = options.webhook;
    this.steps = [...options.steps];
    this.db = options.db;
  }

  describe(): Record<string, unknown> {
    return { steps: this.steps.map(describeStep) };
  }

  async execute(context: ExecutionContext): Promise<ExecutionResult> {
    const state = { previous: null as string | null, outputs: {} as Record<string, string>, index: 0 };
    await this.runSteps(this.steps, context, state);
    return { content: state.previous ?? '' };
  }

  private async runSteps(steps: readonly WorkflowStep[], context: ExecutionContext, state: RunState): Promise<void> {
    for (const s of steps) {
      if (context.signal.aborted) throw context.signal.reason;
      if (s.kind === 'step') {
        state.previous = await this.runStep(s, context, state);
      } else if (s.kind === 'parallel') {
        context.emit('ParallelExecutionStarted', { step_name: s.name, parallel_step_count: s.steps.length });
        // Every branch sees the same input; a failure in one fails the group after all settle.
        const snapshot = { ...state };
        const results = await Promise.allSettled(s.steps.map((p) => this.runStep(p, context, snapshot)));
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
        const contents = results.map((r) => (r as PromiseFulfilledResult<string>).value);
        s.steps.forEach((p, i) => (state.outputs[p.name] = contents[i]!));
        state.index = snapshot.index;
        state.previous = s.steps.map((p, i) => `## ${p.name}\n${contents[i]}`).join('\n\n');
        state.outputs[s.name] = state.previous;
        context.emit('ParallelExecutionCompleted', { step_name: s.name });
      } else {
        const result = await s.when(this.input(context, state));
        context.emit('ConditionExecutionStarted', { step_name: s.name, condition_result: result });
        if (result) await this.runSteps(s.steps, context, state);
        context.emit('ConditionExecutionCompleted', { step_name: s.name, condition_result: result });
      }
    }
  }

  private async runStep(s: Step, context: ExecutionContext, state: RunState): Promise<string> {
    const stepIndex = state.index++;
    context.emit('StepStarted', { step_name: s.name, step_index: stepIndex });
    const executor = typeof s.executor === 'function' ? { executor_type: 'function' } : { executor_type: s.executor.kind, executor_id: s.executor.id };
    const span = context.trace?.child('step', s.name, { step_index: stepIndex, ...executor });
    try {
      const content = await this.executeStep(s, context, state, span);
      span?.end('ok', { content });
      state.outputs[s.name] = content;
      context.emit('StepCompleted', { step_name: s.name, step_index: stepIndex, content });
      return content;
    } catch (error) {
      span?.end(context.signal.aborted ? 'cancelled' : 'error', { error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  /** A step's content: its function's answer, or its agent's, team's or workflow's, traced under the step's span. */
  private async executeStep(s: Step, context: ExecutionContext, state: RunState, span: TraceSpan | undefined): Promise<string> {
    const input = this.input(context, state);
    let content: string;
    if (typeof s.executor === 'function') {
      content = String(await s.executor(input));
    } else {
      const member = s.executor;
      const identity = identityFields(member);
      const prefix = member.kind === 'team' ? 'Team' : '';
      const result = await member.execute({
        ...context,
        message: state.previous ?? context.message,
        history: [],
        // Object.assign: two leading spreads take V8's slow path (see team/team.ts).
        emit: (name, fields) => context.emitRaw(`${prefix}${name}`, Object.assign({}, fields, identity, { step_name: s.name })),
        emitRaw: (event, fields) => context.emitRaw(event, { ...identity, step_name: s.name, ...fields }),
        recordTool: (execution) => context.recordTool({ ...execution, by: execution.by ?? s.name }),
        recordMessages: () => {},
        recordContent: () => {},
        ...(span ? { trace: span } : {}),
      });
      content = memberContent(member, result);
    }
    return content;
  }

  private input(context: ExecutionContext, state: RunState): StepInput {
    return {
      message: context.message,
      previous: state.previous,
      outputs: { ...state.outputs },
      sessionId: context.sessionId,
      userId: context.userId,
      scopedUserId: context.scopedUserId,
      scopedTenantId: context.scopedTenantId,
      signal: context.signal,
    };
  }
}

interface RunState {
  previous: string | null;
  outputs: Record<string, string>;
  index: number;
}

function describeStep(s: WorkflowStep): Record<string, unknown> {
  if (s.kind === 'step') {
    const executor = typeof s.executor === 'function' ? { type: 'function' } : { type: s.executor.kind, id: s.executor.id };
    return { name: s.name, kind: 'step', executor };
  }
  return { name: s.name, kind: s.kind, steps: s.steps.map(describeStep) };
}
