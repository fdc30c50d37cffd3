/**
 * @module server/routes/knowledge/evals
 * Retrieval evaluation: `POST /knowledge/evals` takes labelled queries (JSON: each query with the
 * ids or names of its relevant contents, optionally graded; or multipart: a BEIR folder's
 * `queries` (queries.jsonl) and `qrels` (TSV) files, the corpus being the base's contents matched
 * by id or name) and answers 202 with the eval, which runs in the background;
 * `GET /knowledge/evals` lists them newest first, `GET /knowledge/evals/{eval_id}` shows one with
 * its per-query scores. The rules are knowledge/evals/'s; these routes only translate HTTP.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { unprocessable } from '../../../errors.js';
import { beirQueries, MAX_QUERY_CHARS, type LabelledQuery } from '../../../knowledge/evals/beir.js';
import type { EvalQueryDetail, EvalRecord } from '../../../knowledge/evals/eval-store.js';
import { MAX_EVAL_QUERIES, MAX_JUDGMENTS_PER_QUERY, type EvalRequest } from '../../../knowledge/evals/service.js';
import { SEARCH_TYPES, type SearchType } from '../../../knowledge/vector-stores/vector-store.js';
import type { AppEnv, ServerContext } from '../../context.js';
import { apiRoute, scoped, type RouteDefinition } from '../../route.js';
import { standardErrors } from '../../standard-errors.js';
import { contentCaller } from './content.js';
import { PageMetaSchema, readUpload, SelectQuery } from './schemas.js';

const ScoresSchema = z
  .object({ ndcg: z.number().openapi({ description: 'nDCG@k' }), mrr: z.number().openapi({ description: 'MRR@k' }), recall: z.number().openapi({ description: 'Recall@recall_k' }) })
  .openapi('KnowledgeEvalScores');
const PerType = z.object({ vector: ScoresSchema.optional(), keyword: ScoresSchema.optional(), hybrid: ScoresSchema.optional() });

const EvalSchema = z
  .object({
    id: z.string(),
    knowledge_id: z.string(),
    name: z.string().nullable(),
    status: z.enum(['queued', 'running', 'completed', 'failed']),
    error: z.string().nullable(),
    search_types: z.array(z.enum(SEARCH_TYPES)),
    k: z.number().int().openapi({ description: 'The cut-off of nDCG and MRR' }),
    recall_k: z.number().int().openapi({ description: 'The cut-off of recall' }),
    queries_total: z.number().int(),
    queries_done: z.number().int(),
    results: PerType.nullable().openapi({ description: 'Mean figures per search type, once completed' }),
    settings: z
      .object({
        embedder: z.object({ id: z.string(), dimensions: z.number().int().nullable() }).nullable(),
        chunkers: z.array(z.object({ chunker: z.string().nullable(), chunker_settings: z.record(z.string(), z.unknown()).nullable(), contents: z.number().int() })),
        contents: z.number().int(),
        chunks: z.number().int(),
      })
      .nullable()
      .openapi({ description: "What the base was built with when the eval ran (the stored vectors' embedder, chunkers and their settings), to compare evals across a reindex or a chunker change" }),
    user_id: z.string().nullable(),
    created_at: z.number().int().openapi({ description: 'Epoch seconds' }),
    started_at: z.number().int().nullable(),
    finished_at: z.number().int().nullable(),
  })
  .openapi('KnowledgeEval');

const DetailSchema = z.object({ id: z.string(), query: z.string(), relevant: z.number().int(), scores: PerType }).openapi('KnowledgeEvalQuery');

const Relevant = z.union([
  z.string().min(1).max(500),
  z.object({ content: z.string().min(1).max(500).openapi({ description: 'A content id, or a content name' }), grade: z.number().min(0).max(1000).optional().openapi({ description: 'Graded relevance; default 1' }) }),
]);
const Options = {
  name: z.string().max(200).optional(),
  k: z.coerce.number().int().min(1).max(100).optional().openapi({ description: 'The cut-off of nDCG and MRR; default 10' }),
  recall_k: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: 'The cut-off of recall; default 100' }),
};
const JsonEvalSchema = z
  .object({
    ...Options,
    search_types: z.array(z.enum(SEARCH_TYPES)).min(1).max(3).optional().openapi({ description: 'Default every type the base supports' }),
    queries: z
      .array(
        z.object({
          id: z.string().min(1).max(200).optional().openapi({ description: 'Default its position, from 1' }),
          query: z.string().min(1).max(MAX_QUERY_CHARS),
          relevant: z.array(Relevant).min(1).max(MAX_JUDGMENTS_PER_QUERY),
        }),
      )
      .max(MAX_EVAL_QUERIES),
  })
  .openapi('KnowledgeEvalRequest');
const FileSchema = z.custom<File>((v) => v instanceof File, { message: 'must be a file' }).openapi({ type: 'string', format: 'binary' });
const FormEvalSchema = z.object({
  ...Options,
  search_types: z.string().max(100).optional().openapi({ description: 'Comma-separated: vector, keyword, hybrid; default every type the base supports' }),
  queries: FileSchema.openapi({ description: "A BEIR queries.jsonl: {\"_id\", \"text\"} a line" }),
  qrels: FileSchema.openapi({ description: 'A BEIR qrels TSV: query-id, corpus-id, score a line (a header line allowed); corpus ids are matched to content ids, else names' }),
});

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

function toEval(r: EvalRecord): z.infer<typeof EvalSchema> {
  return {
    id: r.id,
    knowledge_id: r.knowledge_id,
    name: r.name,
    status: r.status,
    error: r.error,
    search_types: r.search_types,
    k: r.k,
    recall_k: r.recall_k,
    queries_total: r.queries_total,
    queries_done: r.queries_done,
    results: r.results,
    settings: r.settings,
    user_id: r.user_id,
    created_at: Math.floor(r.created_at / 1000),
    started_at: seconds(r.started_at),
    finished_at: seconds(r.finished_at),
  };
}

type JsonEval = z.infer<typeof JsonEvalSchema>;
type FormEval = z.infer<typeof FormEvalSchema>;

function fromJson(body: JsonEval): EvalRequest {
  const queries: LabelledQuery[] = body.queries.map((q, i) => ({
    id: q.id ?? String(i + 1),
    text: q.query,
    judgments: q.relevant.map((r) => (typeof r === 'string' ? { document: r, grade: 1 } : { document: r.content, grade: r.grade ?? 1 })),
  }));
  return { name: body.name, k: body.k, recallK: body.recall_k, searchTypes: body.search_types, queries };
}

async function fromForm(form: FormEval): Promise<EvalRequest> {
  let searchTypes: SearchType[] | undefined;
  if (form.search_types !== undefined) {
    const names = form.search_types.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = names.filter((n) => !(SEARCH_TYPES as readonly string[]).includes(n));
    if (unknown.length > 0 || names.length === 0) throw unprocessable(`search_types must list ${SEARCH_TYPES.join(', ')} (comma-separated), not "${form.search_types}"`);
    searchTypes = names as SearchType[];
  }
  const queries = beirQueries(await form.queries.text(), await form.qrels.text());
  return { name: form.name, k: form.k, recallK: form.recall_k, searchTypes, queries };
}

async function readEval(c: Context<AppEnv>): Promise<EvalRequest> {
  const type = c.req.header('content-type') ?? '';
  if (/^application\/json/i.test(type)) return fromJson(c.req.valid('json' as never) as JsonEval);
  return fromForm(readUpload<FormEval>(c));
}

const IdParam = z.object({ eval_id: z.string().min(1).max(200).openapi({ param: { name: 'eval_id', in: 'path' } }) });

export function knowledgeEvalRoutes(ctx: ServerContext): RouteDefinition[] {
  const service = ctx.content;
  return [
    apiRoute(
      scoped('knowledge:write'),
      {
        method: 'post',
        path: '/knowledge/evals',
        operationId: 'startKnowledgeEval',
        tags: ['Knowledge'],
        summary: 'Measure retrieval quality on labelled queries, in the background',
        description:
          'Labelled queries (JSON), or a BEIR folder\'s queries.jsonl and qrels TSV (multipart, fields `queries` and `qrels`), are checked and their judged documents ' +
          'matched to the completed contents of the base the caller may see (a content id, else a content name: upload a corpus with its ids as names); ' +
          'an unknown document, an empty or malformed input is a 4xx. Every query is then searched by each search type and nDCG@k, MRR@k and Recall@recall_k are stored. ' +
          'A runtime that stops mid-eval hands it to another (or to its restart), which runs it again; one that fails for good reads `failed`, never stuck `running`.',
        request: {
          query: SelectQuery,
          body: { content: { 'application/json': { schema: JsonEvalSchema }, 'multipart/form-data': { schema: FormEvalSchema } } },
        },
        responses: { 202: { description: 'The eval, queued', content: { 'application/json': { schema: EvalSchema } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const request = await readEval(c as unknown as Context<AppEnv>);
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const record = await ctx.evals.start(knowledge, request, contentCaller(ctx, c));
        return c.json(toEval(record), 202);
      },
    ),
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/evals',
        operationId: 'listKnowledgeEvals',
        tags: ['Knowledge'],
        summary: 'List retrieval evals, newest first',
        request: {
          query: SelectQuery.extend({ limit: z.coerce.number().int().min(1).max(100).default(20), page: z.coerce.number().int().min(1).max(1_000_000).default(1) }),
        },
        responses: { 200: { description: 'A page of evals (without per-query scores)', content: { 'application/json': { schema: z.object({ data: z.array(EvalSchema), meta: PageMetaSchema }) } } }, ...standardErrors },
      },
      async (c) => {
        const q = c.req.valid('query');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const page = await ctx.evals.list(knowledge, { limit: q.limit, page: q.page }, contentCaller(ctx, c));
        return c.json({ data: page.data.map(toEval), meta: { page: q.page, limit: q.limit, total_pages: Math.ceil(page.total / q.limit), total_count: page.total } }, 200);
      },
    ),
    apiRoute(
      scoped('knowledge:read'),
      {
        method: 'get',
        path: '/knowledge/evals/{eval_id}',
        operationId: 'getKnowledgeEval',
        tags: ['Knowledge'],
        summary: 'One retrieval eval: its status, figures, settings and per-query scores',
        request: { params: IdParam, query: SelectQuery },
        responses: {
          200: { description: 'The eval', content: { 'application/json': { schema: EvalSchema.extend({ queries: z.array(DetailSchema).nullable().openapi({ description: 'Per-query scores, once completed' }) }) } } },
          ...standardErrors,
        },
      },
      async (c) => {
        const q = c.req.valid('query');
        const { eval_id: id } = c.req.valid('param');
        const knowledge = await service.select(q.knowledge_id, q.db_id);
        const { record, details } = await ctx.evals.get(knowledge, id, contentCaller(ctx, c));
        return c.json({ ...toEval(record), queries: details as EvalQueryDetail[] | null }, 200);
      },
    ),
  ];
}
