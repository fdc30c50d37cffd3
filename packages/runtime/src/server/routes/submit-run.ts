/**
 * Answers `POST /{agents,teams,workflows}/{id}/runs`: a run started here (its events, or the
 * finished run), a background run (202 with the run, at once), or a message queued behind the
 * session's run in progress (its events or finished run once it has run, wherever it ran). With
 * an `Idempotency-Key`, a repeat answers the same run in the same way.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { RuntimeError } from '../../errors.js';
import type { Submitted, SubmitInput } from '../../run/durable-runs.js';
import type { Runnable } from '../../run/execution.js';
import { toRunResponse } from '../../run/run-response.js';
import { RUN_QUEUE_CHANNEL } from '../../run/run-queue.js';
import type { StartedRun } from '../../run/runner.js';
import { RUN_EVENTS_CHANNEL } from '../../sessions/run-event-store.js';
import type { RunRecord } from '../../sessions/types.js';
import { timeOrderedId } from '../../util/ids.js';
import type { AppEnv, ServerContext } from '../context.js';
import { idempotencyKey, idempotent } from '../idempotency.js';
import { followRun } from './follow-run.js';
import type { RunRequest } from './run-schemas.js';
import { streamRun, type OnDisconnect } from './stream-run.js';

/** How a run request wants its answer. */
interface Answering {
  stream: boolean;
  background: boolean;
  onDisconnect: OnDisconnect;
}

function answering(body: RunRequest): Answering {
  const background = body.background === true;
  return { stream: body.stream !== false, background, onDisconnect: body.on_disconnect ?? (background ? 'continue' : 'cancel') };
}

export async function submitRun(c: Context<AppEnv>, ctx: ServerContext, component: Runnable, body: RunRequest): Promise<Response> {
  const how = answering(body);
  const input: SubmitInput = {
    component,
    message: body.message,
    sessionId: body.session_id,
    // An authenticated caller runs as itself, whatever user_id the body names.
    userId: c.get('principal')?.userId ?? body.user_id,
    tenantId: ctx.auth.tenantOf(c.get('principal')),
    unconfined: ctx.auth.isAdmin(c.get('principal')),
    // Handed to the agent's tool sources (an MCP server's headers(ctx)) when the run starts here.
    principal: c.get('principal'),
    background: how.background,
    strategy: body.multitask_strategy,
  };
  // Checked before anything is recorded: a refused webhook (no secret, a private host) starts no run.
  const webhook = body.webhook === undefined ? undefined : await ctx.webhooks.check(body.webhook);
  const submit = async (runId?: string): Promise<Response> => {
    const submitted = await ctx.durable.submit(runId === undefined ? input : { ...input, runId });
    await registerWebhooks(ctx, submitted, [webhook, component.webhook]);
    return answerSubmitted(c, ctx, submitted, how);
  };
  const key = idempotencyKey(c);
  if (key === undefined) return submit();
  const runId = timeOrderedId();
  return idempotent(c, {
    store: ctx.idempotency,
    key,
    body,
    resourceId: runId,
    create: () => submit(runId),
    replay: async (id) => answerExisting(c, ctx, await existingRun(ctx, id), how, 'continue'),
  });
}

/**
 * Webhooks: the ended run goes to the request's URL and the component's. The delivery row is
 * recorded now (wherever the run executes); a run started here looks for it at once when it ends.
 */
async function registerWebhooks(ctx: ServerContext, submitted: Submitted, urls: (string | undefined)[]): Promise<void> {
  const given = urls.filter((u): u is string => u !== undefined);
  if (given.length === 0) return;
  const runId = submitted.kind === 'started' ? submitted.run.runId : submitted.record.run_id;
  for (const url of given) await ctx.webhooks.register(runId, url);
  if (submitted.kind === 'started') void submitted.run.done.then(() => ctx.webhooks.nudge());
}

/** Answers a started (or continued) run: its events, or the finished run when not streaming. */
export async function answerRun(c: Context<AppEnv>, run: StartedRun, stream: boolean, onDisconnect: OnDisconnect): Promise<Response> {
  if (!stream) {
    // The caller waits for the whole answer; if it hangs up, the run is cancelled, as in streaming.
    if (onDisconnect === 'cancel') c.req.raw.signal.addEventListener('abort', () => run.cancel('client disconnected'), { once: true });
    return c.json(toRunResponse(await run.done), 200);
  }
  return streamSSE(c, (sse) => streamRun(sse, run, onDisconnect));
}

function answerSubmitted(c: Context<AppEnv>, ctx: ServerContext, submitted: Submitted, how: Answering): Promise<Response> {
  if (submitted.kind === 'started') return answerRun(c, submitted.run, how.stream, how.onDisconnect);
  return answerExisting(c, ctx, submitted.record, how, how.onDisconnect);
}

/**
 * Answers a run this request did not start here: 202 with it for a background run; else its
 * stored events as they come, or the run once it has ended. `cancel` ends the run (queued or
 * running, wherever) if the client goes away.
 */
async function answerExisting(c: Context<AppEnv>, ctx: ServerContext, run: RunRecord, how: Answering, onDisconnect: OnDisconnect): Promise<Response> {
  if (how.background) return c.json(toRunResponse(run), 202);
  const signal = c.req.raw.signal;
  const gone = () => {
    if (onDisconnect === 'cancel') void ctx.runner.cancel(run.run_id, 'client disconnected', 0).catch(() => undefined);
  };
  if (!how.stream) {
    signal.addEventListener('abort', gone, { once: true });
    return c.json(toRunResponse(await waitForEnd(ctx, run.run_id, signal)), 200);
  }
  return streamSSE(c, async (sse) => {
    sse.onAbort(gone);
    await followRun(sse, { runId: run.run_id, after: { seq: 0 }, events: ctx.runner.events, sessions: ctx.sessions, bus: ctx.db.notifications() });
  });
}

/** The run a first request with this key made (it may still be recording it). */
async function existingRun(ctx: ServerContext, runId: string): Promise<RunRecord> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await ctx.sessions.getRun(runId);
    if (run) return run;
    if (Date.now() >= deadline) throw new RuntimeError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry later');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ENDED = new Set(['COMPLETED', 'ERROR', 'CANCELLED', 'PAUSED']);

/** The run once it has ended or paused, read from the database (it may run on any runtime). */
async function waitForEnd(ctx: ServerContext, runId: string, signal: AbortSignal): Promise<RunRecord> {
  const bus = ctx.db.notifications();
  let wake: (() => void) | undefined;
  const offEvents = bus.subscribe(RUN_EVENTS_CHANNEL, (id) => id === runId && wake?.());
  const offQueue = bus.subscribe(RUN_QUEUE_CHANNEL, () => wake?.());
  try {
    for (;;) {
      const run = await ctx.sessions.getRun(runId);
      if (!run) throw new RuntimeError('NOT_FOUND', 'Run not found');
      if (ENDED.has(run.status) || signal.aborted) return run;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    offEvents();
    offQueue();
  }
}
