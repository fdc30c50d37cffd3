/**
 * @module knowledge/reindex/reindex-job
 * Re-embedding a knowledge base with another embedder, as a durable job (see
 * vector-stores/reindex.ts for how a store stages the new vectors and swaps them in at once).
 *
 * - At start, a runtime whose embedder differs from the one a store was built with refuses to
 *   start, unless KNOWLEDGE_REINDEX names the knowledge base (or a reindex to this embedder is
 *   already under way): then it re-embeds in the background, answering searches by keyword
 *   until every chunk has its new vector.
 * - `POST /knowledge/reindex` starts the same job by hand (the running one, if there is one);
 *   `GET /knowledge/reindex` reports it.
 *
 * The job's kind names the target embedder, so only runtimes configured with it claim it. It
 * embeds the chunks still without a staged vector, a page at a time, through the embedder's
 * shared limits, and stages each batch as soon as it is back: a runtime killed mid-job loses
 * only the batches it had in flight, and whoever takes the job over continues from there.
 */
import type { KnowledgeComponent } from '../../components/component.js';
import { ConfigurationError, RuntimeError } from '../../errors.js';
import type { Job, JobStore } from '../../jobs/job-store.js';
import type { JobHandler, JobWorker } from '../../jobs/job-worker.js';
import type { Embedder } from '../../model/embedder.js';
import { ModelError } from '../../model/model.js';
import type { Logger } from '../../util/logger.js';
import { isReindexable, type ReindexableStore } from '../vector-stores/reindex.js';
import type { VectorStore } from '../vector-stores/vector-store.js';

export const REINDEX_SETTING = 'KNOWLEDGE_REINDEX';

/** A knowledge base that can be re-embedded: an embedder, and a store that stages vectors. */
export interface ReindexableKnowledge extends KnowledgeComponent {
  readonly store: VectorStore & ReindexableStore;
  readonly embedder: Embedder;
}

export function isReindexableKnowledge(k: KnowledgeComponent): k is ReindexableKnowledge {
  const c = k as Partial<ReindexableKnowledge>;
  return c.embedder !== undefined && c.store !== undefined && isReindexable(c.store);
}

/** Only runtimes hosting the base with the target embedder claim the job. */
export function reindexKind(knowledgeId: string, embedderId: string): string {
  return `knowledge.reindex:${knowledgeId}:${embedderId}`;
}

export function reindexRef(knowledgeId: string): string {
  return `${knowledgeId}/reindex`;
}

export interface ReindexPayload {
  knowledge_id: string;
  embedder: string;
}

export type ReindexState = 'idle' | 'queued' | 'running' | 'completed' | 'failed';

export interface ReindexStatus {
  knowledge_id: string;
  state: ReindexState;
  /** The embedder being (or last) re-embedded with; the stored one when idle. */
  embedder: string | null;
  /** The embedder that built the vectors searches use now, and their dimension. */
  stored_embedder: string | null;
  dimensions: number | null;
  chunks_done: number;
  chunks_total: number;
  job_id: string | null;
  attempts: number;
  error: string | null;
}

const isReindexJob = (job: Job) => job.kind.startsWith('knowledge.reindex:');

async function reindexJobs(jobs: JobStore, knowledgeId: string): Promise<Job[]> {
  return (await jobs.byRef(reindexRef(knowledgeId))).filter(isReindexJob);
}

/** Where a knowledge base's reindex stands, from its job and its store. */
export async function reindexStatus(knowledge: ReindexableKnowledge, jobs: JobStore): Promise<ReindexStatus> {
  const [job] = (await reindexJobs(jobs, knowledge.id)).toReversed();
  const state = await knowledge.store.embedderState();
  const counts = await knowledge.store.reindexCounts();
  const base = {
    knowledge_id: knowledge.id,
    stored_embedder: state.embedder?.id ?? null,
    dimensions: state.embedder?.dimensions ?? null,
    chunks_total: counts.total,
    job_id: job?.id ?? null,
    attempts: job?.attempts ?? 0,
  };
  if (job) {
    const target = (job.payload as unknown as ReindexPayload).embedder;
    const done = state.reindexTarget === target ? counts.done : 0;
    return { ...base, state: job.status, embedder: target, chunks_done: done, error: job.status === 'failed' || job.attempts > 1 ? job.lastError : null };
  }
  if (state.reindexTarget !== undefined) {
    return {
      ...base,
      state: 'failed',
      embedder: state.reindexTarget,
      chunks_done: counts.done,
      error: 'The reindex stopped with no job left to finish it; ask for it again (POST /knowledge/reindex)',
    };
  }
  if (state.lastReindex) return { ...base, state: 'completed', embedder: state.lastReindex.embedder, chunks_done: counts.total, error: null };
  return { ...base, state: 'idle', embedder: state.embedder?.id ?? null, chunks_done: 0, error: null };
}

/**
 * Starts a reindex of `knowledge` with its embedder, or returns the one queued or running.
 * A failed one is replaced (its staged vectors are kept: the new job continues from them).
 */
export function startReindex(knowledge: ReindexableKnowledge, worker: JobWorker): Promise<{ jobId: string; created: boolean }> {
  // One at a time per knowledge base in this process, so requests at once find each other's job.
  const previous = starting.get(knowledge.id) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => startNow(knowledge, worker));
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  starting.set(knowledge.id, settled);
  void settled.then(() => {
    if (starting.get(knowledge.id) === settled) starting.delete(knowledge.id);
  });
  return next;
}

const starting = new Map<string, Promise<void>>();

async function startNow(knowledge: ReindexableKnowledge, worker: JobWorker): Promise<{ jobId: string; created: boolean }> {
  const jobs = worker.store;
  const existing = await reindexJobs(jobs, knowledge.id);
  const live = existing.find((j) => j.status !== 'failed');
  if (live) return { jobId: live.id, created: false };
  if (existing.length > 0) await jobs.deleteByRef(reindexRef(knowledge.id));
  const target = knowledge.embedder.id;
  await knowledge.store.beginReindex(target);
  const payload: ReindexPayload = { knowledge_id: knowledge.id, embedder: target };
  const jobId = await jobs.enqueue({ kind: reindexKind(knowledge.id, target), ref: reindexRef(knowledge.id), payload: { ...payload }, maxAttempts: 10 });
  worker.wake();
  return { jobId, created: true };
}

export function reindexHandler(knowledge: ReindexableKnowledge, jobs: JobStore, log: Logger): JobHandler {
  return {
    async run(job: Job, signal: AbortSignal): Promise<void> {
      const { embedder: target } = job.payload as unknown as ReindexPayload;
      // Two requests racing on two runtimes may both have queued one: the older job does the work.
      const older = (await reindexJobs(jobs, knowledge.id)).find((j) => j.id !== job.id && j.status !== 'failed' && j.createdMs < job.createdMs);
      if (older) return;
      let finished: boolean;
      try {
        finished = await reindex(knowledge, target, signal);
      } catch (error) {
        throw signal.aborted ? error : readable(error);
      }
      if (!finished) return;
      const state = await knowledge.store.embedderState();
      log.info(`knowledge "${knowledge.id}": reindexed ${state.lastReindex?.chunks ?? 0} chunks with ${target}`);
    },
  };
}

/**
 * A provider's failure as the job's recorded error: refusals (a 4xx other than 408 and 429: a
 * bad key, an unknown model) end the job at once; the rest are retried. Messages of
 * ModelErrors never hold the API key.
 */
function readable(error: unknown): unknown {
  if (!ModelError.isInstance(error)) return error;
  const refused = error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
  return refused
    ? new RuntimeError('BAD_REQUEST', `The embedder refused the reindex: ${error.message}`, { cause: error })
    : new RuntimeError('SERVICE_UNAVAILABLE', `The embedder failed: ${error.message}`, { cause: error });
}

/**
 * Embeds the chunks still without a staged vector, a page at a time, and swaps them in when none
 * is left. Each batch is staged as soon as it is back, so a crash loses only what was in flight.
 */
async function reindex(knowledge: ReindexableKnowledge, target: string, signal: AbortSignal): Promise<boolean> {
  const { store, embedder } = knowledge;
  await store.beginReindex(target);
  const batch = embedder.batchSize ?? 100;
  const page = batch * Math.max(1, embedder.maxConcurrency ?? 1) * 2;
  for (;;) {
    signal.throwIfAborted();
    const pending = await store.pendingChunks(page);
    if (pending.length === 0) {
      if (await store.finishReindex(target)) return true;
      // Superseded by a reindex to another embedder: that one's job finishes the work.
      if ((await store.embedderState()).reindexTarget !== target) return false;
      continue;
    }
    const inner = new AbortController();
    const onAbort = () => inner.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const groups: (typeof pending)[] = [];
      for (let i = 0; i < pending.length; i += batch) groups.push(pending.slice(i, i + batch));
      // All at once: the embedder's shared limiter bounds how many are in flight.
      await Promise.all(
        groups.map(async (group) => {
          try {
            const vectors = await embedder.embed(group.map((c) => c.content), inner.signal);
            await store.stageVectors(group.map((c, i) => ({ ...c, embedding: vectors[i]! })));
          } catch (error) {
            inner.abort(error);
            throw error;
          }
        }),
      );
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * At start: registers the reindex jobs of every hosted knowledge base, and refuses to start when
 * a store was built by another embedder than the configured one, unless KNOWLEDGE_REINDEX names
 * it (then a reindex starts) or a reindex to the configured embedder is under way already.
 * `wanted` is that setting's list (settings/knowledge).
 */
export async function checkKnowledgeEmbedders(knowledge: readonly KnowledgeComponent[], worker: JobWorker, wanted: readonly string[], log: Logger): Promise<void> {
  for (const id of wanted) {
    if (!knowledge.some((k) => k.id === id)) {
      throw new ConfigurationError(`${REINDEX_SETTING} names knowledge base "${id}", which this runtime does not host (it hosts: ${knowledge.map((k) => k.id).join(', ') || 'none'})`);
    }
  }
  for (const k of knowledge) {
    if (!isReindexableKnowledge(k)) {
      if (wanted.includes(k.id)) throw new ConfigurationError(`${REINDEX_SETTING} names knowledge base "${k.id}", which has no embedder (or a store that cannot be reindexed)`);
      continue;
    }
    worker.register(reindexKind(k.id, k.embedder.id), reindexHandler(k, worker.store, log));
    await k.store.create();
    const state = await k.store.embedderState();
    const configured = k.embedder.id;
    const built = state.embedder;
    if (state.reindexTarget === configured) {
      // Under way (this runtime's previous life, or another runtime, started it): make sure a job carries it.
      await startReindex(k, worker);
      continue;
    }
    if (!built || built.id === configured) continue;
    if (wanted.includes(k.id)) {
      await startReindex(k, worker);
      log.info(`knowledge "${k.id}": re-embedding with ${configured} in the background (its vectors are from ${built.id}); searches use keywords until it is done`);
      continue;
    }
    throw new ConfigurationError(
      `Knowledge base "${k.id}" was embedded with ${built.id} (${built.dimensions} dimensions), but this runtime is configured with ${configured}: ` +
        `restore the embedder setting, or start with ${REINDEX_SETTING}=${k.id} to re-embed it in the background`,
    );
  }
}

export function noEmbedder(knowledgeId: string): RuntimeError {
  return new RuntimeError('BAD_REQUEST', `Knowledge base "${knowledgeId}" has no embedder (or its store cannot be reindexed), so there is nothing to re-embed with`);
}
