/**
 * @module knowledge/evals/service
 * Retrieval evaluation as a feature: labelled queries are checked and matched to the base's
 * contents when asked for (so bad input is a 4xx at once), stored with a durable job (svc_jobs,
 * kind `knowledge.eval:<base>`, ref `evals/<id>`), and run in the background by whichever
 * runtime hosting the base claims the job. A runtime that dies mid-eval loses its lease and the
 * eval runs again from the start elsewhere (or on its restart); one that died twice on it fails
 * it, as every job does. A record left queued or running with no job to finish it reads failed.
 */
import { badRequest, RuntimeError, unprocessable } from '../../errors.js';
import type { Job } from '../../jobs/job-store.js';
import type { JobHandler, JobWorker } from '../../jobs/job-worker.js';
import type { Db } from '../../storage/db.js';
import type { Logger } from '../../util/logger.js';
import type { ContentKnowledge } from '../content/content-knowledge.js';
import type { ContentCaller } from '../content/service.js';
import { SEARCH_TYPES, type SearchType } from '../vector-stores/vector-store.js';
import type { LabelledQuery } from './beir.js';
import { EvalStore, type EvalQueryDetail, type EvalRecord } from './eval-store.js';
import { runEval } from './run-eval.js';
import { baseSettings } from './settings.js';
import { resolveJudgments } from './targets.js';

export const MAX_EVAL_QUERIES = 10_000;
export const MAX_JUDGMENTS_PER_QUERY = 1000;
export const DEFAULT_K = 10;
export const DEFAULT_RECALL_K = 100;

export const evalKind = (knowledgeId: string) => `knowledge.eval:${knowledgeId}`;
export const evalRef = (evalId: string) => `evals/${evalId}`;

interface EvalPayload {
  eval_id: string;
  /** Whose view of the base the searches take (a confined caller's); absent: everything. */
  visible_to?: string;
  /** The caller's tenant, whose contents alone the searches see (auth/tenancy.ts). */
  tenant_id?: string;
}

export interface EvalRequest {
  name?: string | undefined;
  queries: LabelledQuery[];
  searchTypes?: SearchType[] | undefined;
  k?: number | undefined;
  recallK?: number | undefined;
}

const INTERRUPTED = 'The evaluation stopped with no job left to finish it; run it again';

/** The search types a base answers: all three with an embedder, else keyword. */
function supported(knowledge: ContentKnowledge): SearchType[] {
  return (knowledge as { searchTypes?: SearchType[] }).searchTypes ?? ['keyword'];
}

export class EvalService {
  readonly store: EvalStore;

  constructor(private readonly o: { db: Db; jobs: JobWorker; bases: () => readonly ContentKnowledge[]; log: Logger }) {
    this.store = new EvalStore(o.db);
  }

  /** Lets this runtime's job worker run the evals of every knowledge base it serves. */
  registerJobs(): void {
    for (const knowledge of this.o.bases()) this.o.jobs.register(evalKind(knowledge.id), this.handler(knowledge));
  }

  /** Checks the request, matches its judged documents to contents, and queues the eval. */
  async start(knowledge: ContentKnowledge, request: EvalRequest, caller: ContentCaller): Promise<EvalRecord> {
    const { queries } = request;
    if (queries.length === 0) throw unprocessable('An eval needs at least one labelled query');
    if (queries.length > MAX_EVAL_QUERIES) throw unprocessable(`An eval takes at most ${MAX_EVAL_QUERIES} queries, not ${queries.length}`);
    for (const q of queries) {
      if (q.text.trim() === '') throw unprocessable(`Query "${q.id}" has no text`);
      if (!q.judgments.some((j) => j.grade > 0)) throw unprocessable(`Query "${q.id}" has no relevant document (a judgment with a grade above 0)`);
      if (q.judgments.length > MAX_JUDGMENTS_PER_QUERY) throw unprocessable(`Query "${q.id}" has more than ${MAX_JUDGMENTS_PER_QUERY} judgments`);
    }
    if (new Set(queries.map((q) => q.id)).size !== queries.length) throw unprocessable('Query ids must be unique');
    const can = supported(knowledge);
    const searchTypes = request.searchTypes ?? can;
    if (searchTypes.length === 0) throw unprocessable('search_types is empty');
    const refused = searchTypes.filter((t) => !can.includes(t) || !(SEARCH_TYPES as readonly string[]).includes(t));
    if (refused.length > 0) throw badRequest(`Knowledge base "${knowledge.id}" does not support ${refused.join(', ')} search (it supports ${can.join(', ')})`);
    const k = request.k ?? DEFAULT_K;
    const recallK = request.recallK ?? DEFAULT_RECALL_K;
    const resolved = await resolveJudgments(this.o.db, knowledge.id, queries, caller.scope, caller.tenant);
    const payload: EvalPayload = { eval_id: '', ...(caller.scope !== undefined ? { visible_to: caller.scope } : {}), ...(caller.tenant !== undefined ? { tenant_id: caller.tenant } : {}) };
    const record = await this.o.db.transaction(async (tx) => {
      const made = await this.store.create({ knowledge_id: knowledge.id, name: request.name ?? null, user_id: caller.owner ?? null, tenant_id: caller.tenant ?? null, search_types: [...new Set(searchTypes)], k, recall_k: recallK, queries: resolved }, tx);
      await this.o.jobs.store.enqueue({ kind: evalKind(knowledge.id), ref: evalRef(made.id), payload: { ...payload, eval_id: made.id }, maxAttempts: 3 }, tx);
      return made;
    });
    this.o.jobs.wake();
    return record;
  }

  /** One eval with its per-query scores, as the caller may see it. */
  async get(knowledge: ContentKnowledge, id: string, caller: ContentCaller): Promise<{ record: EvalRecord; details: EvalQueryDetail[] | null }> {
    const found = await this.store.get(knowledge.id, id, { user: caller.scope, tenant: caller.tenant });
    if (!found) throw new RuntimeError('NOT_FOUND', `Eval '${id}' not found`);
    return { record: await this.reconciled(found), details: await this.store.details(id) };
  }

  async list(knowledge: ContentKnowledge, page: { limit: number; page: number }, caller: ContentCaller): Promise<{ data: EvalRecord[]; total: number }> {
    const listed = await this.store.list(knowledge.id, page, { user: caller.scope, tenant: caller.tenant });
    return { data: await Promise.all(listed.data.map((r) => this.reconciled(r))), total: listed.total };
  }

  /** A record queued or running whose job is gone (or failed) is failed: it will never finish. */
  private async reconciled(record: EvalRecord): Promise<EvalRecord> {
    if (record.status !== 'queued' && record.status !== 'running') return record;
    const jobs = await this.o.jobs.store.byRef(evalRef(record.id));
    if (jobs.some((j) => j.status !== 'failed')) return record;
    // The job may have just finished: read the record again before calling it interrupted.
    const now = (await this.store.get(record.knowledge_id, record.id))!;
    if (now.status !== 'queued' && now.status !== 'running') return now;
    const error = jobs.find((j) => j.lastError)?.lastError ?? INTERRUPTED;
    await this.store.fail(record.id, error);
    return (await this.store.get(record.knowledge_id, record.id))!;
  }

  private handler(knowledge: ContentKnowledge): JobHandler {
    const store = this.store;
    const db = this.o.db;
    const log = this.o.log;
    return {
      async run(job: Job, signal: AbortSignal): Promise<void> {
        const { eval_id: id, visible_to: visibleTo, tenant_id: tenantId } = job.payload as unknown as EvalPayload;
        const record = await store.get(knowledge.id, id);
        if (!record || record.status === 'completed' || record.status === 'failed') return;
        const queries = (await store.input(id)) ?? [];
        await store.start(id, await baseSettings(db, knowledge));
        const started = Date.now();
        const { results, details } = await runEval({
          queries,
          searchTypes: record.search_types,
          k: record.k,
          recallK: record.recall_k,
          signal,
          progress: (done) => store.progress(id, done),
          search: async (query, searchType, limit) =>
            (await knowledge.search(query, { searchType, limit, ...(visibleTo !== undefined ? { userId: visibleTo } : {}), ...(tenantId !== undefined ? { tenantId } : {}) })).map((h) => h.content_id),
        });
        await store.complete(id, results, details);
        log.info(`knowledge "${knowledge.id}": eval ${id} of ${queries.length} queries done in ${Date.now() - started} ms`);
      },
      async failed(job: Job, message: string): Promise<void> {
        await store.fail((job.payload as unknown as EvalPayload).eval_id, message);
      },
    };
  }
}
